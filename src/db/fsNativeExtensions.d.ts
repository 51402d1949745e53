/**
 * Types of the part of `fs-native-extensions` (Holepunch, https://github.com/holepunchto/fs-native-extensions)
 * this service uses; the package ships none. On Linux it takes open file description locks
 * (`fcntl(F_OFD_SETLK)`), on macOS `flock(2)`, on Windows `LockFileEx`: the kernel releases them
 * when the holding process ends, however it ends.
 */
declare module 'fs-native-extensions' {
  /**
   * Tries to take a lock on an open file without waiting.
   * @param fd A file descriptor from `fs.open` (read-write for an exclusive lock).
   * @param options.shared A shared (read) lock instead of an exclusive one (default false).
   * @returns true when taken, false when another holder has a conflicting lock.
   * @throws Error for other failures (e.g. EBADF).
   */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
  /** Releases a lock taken on `fd` (closing `fd` releases it too). */
  export function unlock(fd: number): void;
}
