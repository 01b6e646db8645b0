/** The media object of the API (openapi.yaml Media), as GET /media/{id} answers it and the media.* events carry it. */
import { mediaStatus, type MediaItem, type MediaStatus } from '../model.js';

export interface MediaView {
  object: 'media';
  id: string;
  status: MediaStatus;
  url: string | null;
  fileName: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  pages: number | null;
  altText: string | null;
  error: { code: string; message: string } | null;
  createdAt: string;
  updatedAt: string;
}

export function mediaView(item: MediaItem): MediaView {
  const status = mediaStatus(item);
  return {
    object: 'media',
    id: item.id,
    status,
    url: status === 'ready' && item.url !== '' ? item.url : null,
    fileName: item.fileName ?? item.objectKey.split('/').pop() ?? 'file',
    contentType: item.contentType,
    size: item.sizeBytes,
    width: item.width ?? null,
    height: item.height ?? null,
    durationSeconds: item.durationSeconds,
    pages: item.pageCount ?? null,
    altText: item.altText ?? null,
    error: item.error ?? null,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt ?? item.createdAt,
  };
}

