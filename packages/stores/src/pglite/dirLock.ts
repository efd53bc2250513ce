import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Thrown when another live process holds the embedded database's directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`the embedded database at ${dir} is in use by process ${pid}: stop that process first (two processes writing one PGlite directory corrupt it)`);
    this.name = 'DataDirInUseError';
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Takes `<dir>.lock` for this process, so a second Engram started on the same data dir refuses to open it
 * instead of writing beside the first (PGlite has no lock of its own, and two writers corrupt the
 * directory). The file holds the owner's pid; a lock whose process is gone (a crash, `kill -9`) or that
 * names this process (a container restarted with the same pid) is stale and taken over. Returns the
 * release, which removes the file.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const path = `${dir}.lock`;
  await mkdir(dirname(path), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      const file = await open(path, 'wx');
      await file.writeFile(String(process.pid));
      await file.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 2) throw err;
      const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new DataDirInUseError(dir, pid);
      await rm(path, { force: true });
    }
  }
}
