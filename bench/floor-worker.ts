/**
 * The floors' process (bench/floor-process.ts starts it): runs a floor's sends, writes, stream
 * read and signed POSTs (bench/burst-floor.ts floorRun) on request, one at a time. It ends when the
 * bench asks, or when its IPC channel closes (the bench is gone).
 */
import { floorRun } from './burst-floor.js';
import type { FloorReply, FloorRequest } from './floor-process.js';

function reply(message: FloorReply): void {
  if (process.connected) process.send?.(message);
}

process.on('message', (request: FloorRequest) => {
  if (request.type === 'exit') process.exit(0);
  floorRun(request.spec).then(
    (sends) => reply({ type: 'result', sends }),
    (error: unknown) => reply({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
reply({ type: 'ready' });
