/**
 * One object written with the S3 client, in parts when it is large: S3 takes up to 5 GB in one
 * PutObject, but the local S3 emulator takes at most 11 MiB in one request (enough for a
 * multipart part), and a file the admin CLI or the local upload stand-in writes can be a 500 MB
 * video. Parts of 8 MiB (S3's least is 5 MiB but for the last); an upload that fails half way is
 * aborted, so no parts are left to bill.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

const PART_BYTES = 8 * 1024 * 1024;

/** Writes `body` under the object's key; returns its ETag. */
export async function putObjectInParts(s3: S3Client, object: { Bucket: string; Key: string; ContentType: string }, body: Uint8Array): Promise<string> {
  if (body.byteLength <= PART_BYTES) return (await s3.send(new PutObjectCommand({ ...object, Body: body }))).ETag ?? '""';
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand(object));
  const upload = { Bucket: object.Bucket, Key: object.Key, UploadId };
  try {
    const parts: { ETag: string; PartNumber: number }[] = [];
    for (let offset = 0, number = 1; offset < body.byteLength; offset += PART_BYTES, number++) {
      const part = await s3.send(new UploadPartCommand({ ...upload, PartNumber: number, Body: body.subarray(offset, offset + PART_BYTES) }));
      parts.push({ ETag: part.ETag ?? '', PartNumber: number });
    }
    return (await s3.send(new CompleteMultipartUploadCommand({ ...upload, MultipartUpload: { Parts: parts } }))).ETag ?? '""';
  } catch (error) {
    await s3.send(new AbortMultipartUploadCommand(upload)).catch(() => undefined);
    throw error;
  }
}
