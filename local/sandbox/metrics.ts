/**
 * How a sandbox post "did": figures that are a pure function of the post's id and its age at the
 * moment asked, so two reads at the same moment agree (the sandbox record shows the same numbers
 * the metrics endpoints answer), every figure grows (never shrinks) as the post ages, and
 * different posts do differently. Nothing is stored: a restart of the sandbox answers the same.
 *
 * Growth follows age / (age + 6 h): a third of a post's reach in its first 3 hours, most of it in
 * its first days, as posts on both platforms behave.
 */
import { createHash } from 'node:crypto';

export interface SandboxFigures {
  impressions: number;
  /** Unique members reached (LinkedIn's MEMBERS_REACHED / uniqueImpressionsCount). */
  reached: number;
  likes: number;
  comments: number;
  reposts: number;
  quotes: number;
  bookmarks: number;
  /** Link clicks (X non_public_metrics url_link_clicks; LinkedIn clickCount). */
  clicks: number;
  profileClicks: number;
}

const HOUR_MS = 3_600_000;

/** A post's own numbers in [0, 1), stable for its id. */
function seeds(postId: string): number[] {
  const digest = createHash('sha256').update(postId).digest();
  return Array.from({ length: 8 }, (_, index) => digest.readUInt32BE(index * 4) / 0x1_0000_0000);
}

export function figuresAt(postId: string, createdAt: Date, at: Date): SandboxFigures {
  const ageHours = Math.max(0, at.getTime() - createdAt.getTime()) / HOUR_MS;
  const growth = ageHours / (ageHours + 6);
  const [reach = 0, like = 0, comment = 0, repost = 0, quote = 0, bookmark = 0, click = 0, profile = 0] = seeds(postId);
  // Each figure is floor(ceiling x growth): growth never falls, so no figure ever does.
  const impressions = Math.floor((500 + reach * 9500) * growth);
  const of = (rate: number) => Math.floor(impressions * rate);
  return {
    impressions,
    reached: Math.floor(impressions * 0.7),
    likes: of(0.01 + like * 0.04),
    comments: of(0.001 + comment * 0.009),
    reposts: of(0.002 + repost * 0.008),
    quotes: of(quote * 0.003),
    bookmarks: of(bookmark * 0.006),
    clicks: of(0.003 + click * 0.02),
    profileClicks: of(profile * 0.004),
  };
}
