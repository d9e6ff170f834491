/**
 * `withTimeout`: settles like `p`, or rejects with `onTimeout()` after `ms`; the timer is
 * always cleared, and `p` is never cancelled.
 */

export function withTimeout<T, E>(p: Promise<T>, ms: number, onTimeout: () => E): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
