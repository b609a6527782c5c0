import { randomBytes } from 'node:crypto';
import { lstat, link, mkdir, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { type Admission, UNCOUNTED_BODY_BYTES } from '../../../platform/http/admission.js';
import type { Tenant } from '../../../kernel/principal.js';
import type { ImportFileKind } from '../../imports/index.js';
import type { TenancyService } from '../../tenancy/index.js';
import { type ClaimedFile, type DropFileImportContext, importClaimedFile } from './drop-file-import.service.js';
import {
  type Claim,
  claimedName,
  claimIdOf,
  claimOf,
  classifyName,
  countsOf,
  DONE,
  type DropResult,
  type EntryType,
  entryTypeOf,
  FAILED,
  finishedName,
  isComplete,
  type LeftResult,
  leftResult,
  PROCESSING,
  resultName,
  retryDelayMs,
  type Watched,
  watch,
} from './drop-folder-rules.js';

export interface DropFolderOptions extends DropFileImportContext {
  /** LEARNBASE_IMPORT_DROP_DIR: one sub-folder per tenant, named as the tenant. */
  dir: string;
  intervalMs: number;
  stableMs: number;
  /**
   * The imports in flight in this process (docs/operations.md, "Memory"): a file larger than the
   * API counts takes a place among them, or waits for a later look (another process may take it).
   */
  admission: Pick<Admission, 'enter'>;
  tenancy: Pick<TenancyService, 'findByName'>;
  log: FastifyBaseLogger;
}

/** A claimed file of a tenant's folder. */
interface Claimed extends ClaimedFile {
  /** The tenant's folder. */
  folder: string;
}

/** A file of a tenant's folder that looked complete. */
interface Candidate {
  name: string;
  path: string;
  kind: ImportFileKind;
  ino: number;
  watched: Watched;
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code;
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The import folder (docs/identity.md, "The import folder"): every `intervalMs` it looks at each
 * tenant's folder, claims each complete file by renaming it into the tenant's `processing/` under
 * a name of this process (of several processes renaming one file, one succeeds: the others find it
 * gone), imports it as `learnbase import` would (a `users-sync…` file as a sync, which deactivates
 * the people it leaves out), and moves it to `done/` or `failed/` with its result file beside it.
 * One file at a time, so the server holds at most one file in memory.
 *
 * Exactly once: the import records its claim in `import_drop_files` in its own transaction
 * (drop-file-import.service.ts). A file still claimed when its process died is taken over by the first look of the next process to
 * start (renamed to a name of its own, so that one process takes it): with the record there, the
 * import happened and the file only moves on; without it, it is imported, and should its first
 * claimer be alive and importing it still, the claim's primary key lets one of the two commit.
 *
 * Regular files only: every entry is looked at with lstat, which never follows a link, and a claimed
 * file is opened with O_NOFOLLOW (drop-file-import.service.ts). An entry with an import's name that
 * is a symbolic link, a FIFO, a socket, a device or a folder is left where it is, unread, with a
 * warning in the log and in a result file in failed/ (LeftResult). A tenant folder that is a link,
 * or whose processing/, done/ or failed/ is no real folder, is not worked in at all: a link there
 * could hand one tenant's files (or claims) to another's folder.
 */
export class DropFolder {
  /** This process, in the names of the files it claims. */
  private readonly owner = randomBytes(4).toString('hex');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private failing = false;
  /** Each file looked at, by path, until it is gone. */
  private watched = new Map<string, Watched>();
  /** This process's claims whose import failed for a reason that may pass, by path: when to try again. */
  private readonly retries = new Map<string, { attempts: number; at: number }>();
  /** The tenant folders whose processing/ this process has looked at; its first look takes over what others left. */
  private readonly lookedAt = new Set<string>();
  /** The paths a warning was logged for, once, until they are gone. */
  private told = new Set<string>();
  /** The paths of this pass, to forget the others'. */
  private seen = new Set<string>();

  constructor(private readonly options: DropFolderOptions) {}

  /** Checks that the folder is there and starts looking at it. */
  async start(): Promise<void> {
    const found = await stat(this.options.dir).catch(() => undefined);
    if (!found?.isDirectory()) throw new Error(`LEARNBASE_IMPORT_DROP_DIR names no folder: ${this.options.dir}`);
    this.options.log.info({ dir: this.options.dir, owner: this.owner }, 'watching the import folder');
    this.schedule(0);
  }

  /** Stops looking, and waits for the file being imported (its import is finished, not cut). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .then(
          () => {
            if (this.failing) this.options.log.info('looking at the import folder works again');
            this.failing = false;
          },
          (error) => {
            // Once per failing stretch (the database unreachable), not every interval.
            if (!this.failing) this.options.log.error({ err: error }, 'looking at the import folder failed; trying again');
            this.failing = true;
          },
        )
        .finally(() => {
          this.running = undefined;
          this.schedule(this.options.intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    const { dir, tenancy } = this.options;
    this.seen = new Set();
    const folders = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
      this.warnOnce(dir, { err: error }, 'cannot read the import folder');
      return undefined;
    });
    if (!folders) return;
    for (const entry of folders.sort(byName)) {
      if (this.stopping) return;
      if (entry.name.startsWith('.')) continue;
      const folder = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        // Followed, a link named as tenant B pointing at tenant A's folder would import A's files into B.
        this.warnOnce(
          folder,
          { tenant: entry.name },
          'a symbolic link at the top of the import folder: a tenant folder must be a folder, links are not followed',
        );
        continue;
      }
      if (!entry.isDirectory()) {
        this.warnOnce(folder, {}, 'a file at the top of the import folder, outside any tenant folder: left alone');
        continue;
      }
      const tenant = await tenancy.findByName(entry.name);
      if (!tenant) {
        this.warnOnce(folder, { tenant: entry.name }, 'a folder of the import folder names no tenant: its files are left alone');
        continue;
      }
      await this.lookAtTenant(tenant, folder);
    }
    // What was not seen is gone: it is forgotten (a file of that name later is a new file).
    this.watched = new Map([...this.watched].filter(([path]) => this.seen.has(path)));
    this.told = new Set([...this.told].filter((path) => this.seen.has(path)));
  }

  private async lookAtTenant(tenant: Tenant, folder: string): Promise<void> {
    if (!(await this.ownFolders(tenant, folder))) return;
    await this.finishClaims(tenant, folder);
    const entries = await readdir(folder, { withFileTypes: true }).catch((error: unknown) => {
      this.warnOnce(folder, { err: error }, 'cannot read a tenant folder of the import folder');
      return undefined;
    });
    if (!entries) return;
    const now = Date.now();
    const candidates: Candidate[] = [];
    for (const entry of entries) {
      if ([PROCESSING, DONE, FAILED].includes(entry.name)) continue;
      const path = join(folder, entry.name);
      const named = classifyName(entry.name);
      // Another folder, or anything still being written, without a word.
      if (entry.isDirectory() && !('kind' in named)) continue;
      if ('skip' in named) {
        if (named.skip === 'unknown')
          this.warnOnce(
            path,
            {},
            'a file of the import folder names no import (users*.csv, users*.json, organisation*.json, jobs*.json): left alone',
          );
        if (named.skip === 'too_long') this.warnOnce(path, {}, 'a file of the import folder has a name too long to claim: left alone');
        continue;
      }
      // lstat: the entry itself, never what a link points at.
      const found = await lstat(path).catch(() => undefined);
      if (!found) continue;
      if (!found.isFile()) {
        await this.leave(tenant, folder, { file: entry.name, kind: named.kind, path }, entryTypeOf(found));
        continue;
      }
      this.seen.add(path);
      const watched = watch(this.watched.get(path), found, now);
      this.watched.set(path, watched);
      if (isComplete(watched, now, this.options.stableMs))
        candidates.push({ name: entry.name, path, kind: named.kind, ino: found.ino, watched });
    }
    // Oldest first: a structure and its users dropped together are imported in the order they came.
    candidates.sort((a, b) => a.watched.mtimeMs - b.watched.mtimeMs || byName(a, b));
    for (const candidate of candidates) {
      if (this.stopping) return;
      const release = this.admit(tenant, candidate.watched.size);
      if (!release) continue;
      const claimed = await this.claim(tenant, folder, candidate);
      if (claimed) await this.process(claimed, release);
      else release();
    }
  }

  /**
   * Whether the tenant folder's processing/, done/ and failed/ are its own: absent (made when
   * needed) or real folders. A link there (to another tenant's processing/, say) would let this
   * tenant's look take over that tenant's claims, or move files into its folders: the tenant's
   * folder is left alone, with a warning, until it is put right.
   */
  private async ownFolders(tenant: Tenant, folder: string): Promise<boolean> {
    for (const sub of [PROCESSING, DONE, FAILED]) {
      const found = await lstat(join(folder, sub)).catch(() => undefined);
      if (found && !found.isDirectory()) {
        this.warnOnce(
          join(folder, sub),
          { tenant: tenant.name, type: entryTypeOf(found) },
          `${sub}/ of a tenant folder of the import folder is no folder (a link?): the tenant's files are left alone until it is one`,
        );
        return false;
      }
    }
    return true;
  }

  /**
   * An entry with an import's name that is no regular file: left where it is, said once (while it
   * stays) in the log and in a result file in failed/, alone (nothing is moved beside it).
   */
  private async leave(
    tenant: Tenant,
    folder: string,
    entry: { file: string; kind: Candidate['kind']; path: string },
    type: EntryType,
  ): Promise<void> {
    const first = this.warnOnce(
      entry.path,
      { tenant: tenant.name, type },
      'an entry of the import folder is no regular file: left where it is, unread',
    );
    if (!first) return;
    const result: LeftResult = leftResult({ file: entry.file, tenant: tenant.name, kind: entry.kind }, type);
    const name = finishedName({ claimId: claimIdOf(new Date(), randomBytes(4).toString('hex')), file: entry.file });
    try {
      await this.writeResult(join(folder, FAILED), resultName(name), result);
    } catch (error) {
      this.options.log.warn({ err: error, path: entry.path }, 'cannot write the result of an entry left in the import folder');
    }
  }

  /** Writes a result file whole, or not at all (a temporary name renamed in). */
  private async writeResult(folder: string, name: string, result: DropResult | LeftResult): Promise<void> {
    await mkdir(folder, { recursive: true });
    const path = join(folder, name);
    await writeFile(`${path}.${this.owner}.tmp`, `${JSON.stringify(result, null, 2)}\n`);
    await rename(`${path}.${this.owner}.tmp`, path);
  }

  /** A place among the imports in flight for a file of `bytes` (what gives it back), or undefined while there is none. */
  private admit(tenant: Tenant, bytes: number): (() => void) | undefined {
    if (bytes <= UNCOUNTED_BODY_BYTES) return () => {};
    const entered = this.options.admission.enter(tenant.id);
    return typeof entered === 'function' ? entered : undefined;
  }

  /** Renames a complete file into processing/ under a name of this process; undefined when another process took it first. */
  private async claim(tenant: Tenant, folder: string, candidate: Candidate): Promise<Claimed | undefined> {
    const claim: Claim = { claimId: claimIdOf(new Date(), randomBytes(4).toString('hex')), owner: this.owner, file: candidate.name };
    const claimedPath = join(folder, PROCESSING, claimedName(claim));
    try {
      await mkdir(join(folder, PROCESSING), { recursive: true });
      await rename(candidate.path, claimedPath);
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') this.warnOnce(candidate.path, { err: error }, 'cannot claim a file of the import folder');
      return undefined;
    }
    this.watched.delete(candidate.path);
    // Between the look and the rename, the name may have passed to another file (another process
    // claimed the one looked at, and a new one is being written under its name; or a link was put
    // in its place): it goes back (a link as the link: link() does not follow it), and the next
    // look sees what it is.
    const taken = await lstat(claimedPath).catch(() => undefined);
    // Gone already: a process starting took the claim over (it imports the file).
    if (!taken) return undefined;
    if (
      !taken.isFile() ||
      taken.ino !== candidate.ino ||
      taken.size !== candidate.watched.size ||
      taken.mtimeMs !== candidate.watched.mtimeMs
    ) {
      try {
        await link(claimedPath, candidate.path);
        await unlink(claimedPath);
        return undefined;
      } catch (error) {
        // Yet another file has the name now (or a folder cannot be linked back): this one stays
        // claimed, and is imported as it is, or refused unread if it is no regular file.
        this.options.log.warn({ err: error, file: claimedPath }, 'a file claimed from the import folder changed as it was claimed');
      }
    }
    return { ...claim, tenant, folder, kind: candidate.kind };
  }

  /**
   * The claims of a tenant's processing/: this process's whose retry is due and, at its first look
   * at the folder, those another process left (taken over under a name of this process).
   */
  private async finishClaims(tenant: Tenant, folder: string): Promise<void> {
    const processing = join(folder, PROCESSING);
    const takeOver = !this.lookedAt.has(folder);
    this.lookedAt.add(folder);
    let names: string[];
    try {
      names = (await readdir(processing)).sort();
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') this.warnOnce(processing, { err: error }, 'cannot read processing/ of a tenant folder');
      return;
    }
    for (const name of names) {
      if (this.stopping) return;
      const claim = claimOf(name);
      const named = claim && classifyName(claim.file);
      if (!claim || !named || !('kind' in named)) {
        this.warnOnce(join(processing, name), {}, 'a file in processing/ that no process claimed: left alone');
        continue;
      }
      if (claim.owner === this.owner) {
        const retry = this.retries.get(join(processing, name));
        if (retry && retry.at <= Date.now()) await this.process({ ...claim, tenant, folder, kind: named.kind });
        continue;
      }
      if (!takeOver) continue;
      const mine: Claim = { ...claim, owner: this.owner };
      try {
        await rename(join(processing, name), join(processing, claimedName(mine)));
      } catch (error) {
        if (codeOf(error) !== 'ENOENT') this.warnOnce(join(processing, name), { err: error }, 'cannot take over a claimed file');
        continue;
      }
      this.options.log.info({ file: claim.file, tenant: tenant.name, claim: claim.claimId }, 'taking over a file another process claimed');
      await this.process({ ...mine, tenant, folder, kind: named.kind });
    }
  }

  /**
   * Imports a claimed file and moves it on, in a place among the imports in flight (`entered`: one
   * taken already); on a failure that may pass, or with no place free, it stays claimed, to be
   * tried again later.
   */
  private async process(claimed: Claimed, entered?: () => void): Promise<void> {
    const path = join(claimed.folder, PROCESSING, claimedName(claimed));
    const release = entered ?? this.admit(claimed.tenant, (await lstat(path).catch(() => undefined))?.size ?? 0);
    if (!release) {
      const attempts = this.retries.get(path)?.attempts ?? 0;
      this.retries.set(path, { attempts, at: Date.now() + this.options.intervalMs });
      return;
    }
    try {
      const outcome = await importClaimedFile(this.options, claimed, path);
      if (outcome) await this.finish(claimed, path, outcome.to, outcome.result);
      this.retries.delete(path);
    } catch (error) {
      const attempts = (this.retries.get(path)?.attempts ?? 0) + 1;
      const retryInMs = retryDelayMs(attempts, this.options.intervalMs);
      this.retries.set(path, { attempts, at: Date.now() + retryInMs });
      this.options.log.warn(
        { err: error, file: claimed.file, tenant: claimed.tenant.name, claim: claimed.claimId, attempts, retryInMs },
        'importing a file of the import folder failed; it stays in processing/ and is tried again',
      );
    } finally {
      release();
    }
  }

  /** Writes the result file (whole, or not at all), then moves the claimed file beside it. */
  private async finish(claimed: Claimed, path: string, to: string, result: DropResult): Promise<void> {
    const folder = join(claimed.folder, to);
    const finished = finishedName(claimed);
    await this.writeResult(folder, resultName(finished), result);
    try {
      await rename(path, join(folder, finished));
    } catch (error) {
      // Another process took the claim over while this one imported it: it moves the file on.
      if (codeOf(error) === 'ENOENT') return;
      throw error;
    }
    const details = { file: claimed.file, tenant: claimed.tenant.name, claim: claimed.claimId, to: join(to, finished) };
    if (result.status === 'imported')
      this.options.log.info({ ...details, summary: countsOf(result.summary) }, 'imported a file of the import folder');
    else this.options.log.warn({ ...details, error: result.error.code }, 'refused a file of the import folder');
  }

  /** Logs a warning about `path` once while it stays; true when this was the first time. */
  private warnOnce(path: string, details: Record<string, unknown>, message: string): boolean {
    this.seen.add(path);
    if (this.told.has(path)) return false;
    this.told.add(path);
    this.options.log.warn({ ...details, path }, message);
    return true;
  }
}
