import { describe, expect, it } from 'vitest';
import { CreatesInFlight } from '../../lib/use-cases/creates-in-flight.js';

const never = () => new Promise<void>(() => undefined);
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('CreatesInFlight: send first, record after', () => {
  it('nothing in flight: settled at once', async () => {
    await expect(new CreatesInFlight().settled(1_000, never)).resolves.toBeUndefined();
  });

  it('settles when the last create in flight ends, not before; ending twice counts once', async () => {
    const creates = new CreatesInFlight();
    const first = creates.begin();
    const second = creates.begin();
    let settled = false;
    void creates.settled(60_000, never).then(() => (settled = true));
    first();
    first();
    await flush();
    expect(settled).toBe(false);
    second();
    await flush();
    expect(settled).toBe(true);
  });

  it('waits no longer than its bound while creates keep going', async () => {
    const creates = new CreatesInFlight();
    creates.begin();
    let release: () => void = () => undefined;
    const bound = new Promise<void>((resolve) => (release = resolve));
    let settled = false;
    void creates.settled(1_000, () => bound).then(() => (settled = true));
    await flush();
    expect(settled).toBe(false);
    release();
    await flush();
    expect(settled).toBe(true);
  });
});
