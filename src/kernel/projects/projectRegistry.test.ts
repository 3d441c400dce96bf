import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Kernel } from '../kernel';
import { askGate } from '../gates/gates';
import { createGoal } from '../goals/goals';
import { addTodo, blockTodo } from '../todos/todos';
import {
  findProject,
  forgetProject,
  listProjectEntries,
  projectsPath,
  registerProject,
  registerQuietly,
  renameProject,
} from './projectRegistry';
import { kernelStoreId, readStoreId } from './storeIdentity';
import { summarizeProject } from '../readModels/projectSummary';
import { waitingWords } from '../../protocol/projectWords';

const made: string[] = [];
afterEach(() => made.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A person's config folder of its own, and a parent folder for workspaces. */
function setUp() {
  const place = { env: { LOOPX_CONFIG_DIR: join(temp('loopx-person-'), 'loopx') } };
  const parent = temp('loopx-projects-');
  const workspace = (name: string, parentDir = parent): { root: string; storeId: string | null } => {
    const root = join(parentDir, name);
    mkdirSync(root, { recursive: true });
    const { kernel } = Kernel.init(root);
    const storeId = kernelStoreId(kernel);
    kernel.close();
    return { root, storeId };
  };
  return { place, parent, workspace };
}

describe('the projects registry', () => {
  test('a workspace is listed once however often it is opened; its opened time moves on', () => {
    const { place, workspace } = setUp();
    const api = workspace('api');
    expect(listProjectEntries(place)).toEqual([]);
    const first = registerProject(api.root, 'init', api.storeId, place, new Date('2026-12-01T10:00:00Z'));
    expect(first.change).toBe('added');
    const again = registerProject(api.root, 'vscode', api.storeId, place, new Date('2026-12-02T10:00:00Z'));
    expect(again.change).toBe('seen');
    expect(listProjectEntries(place)).toEqual([
      {
        name: 'api',
        root: api.root,
        storeId: api.storeId,
        addedAt: '2026-12-01T10:00:00.000Z',
        addedVia: 'init',
        openedAt: '2026-12-02T10:00:00.000Z',
        movedFrom: null,
      },
    ]);
    expect(api.storeId).toMatch(/^[0-9a-f]{64}$/);
  });

  test('two folders with the same name get names of their own; rename and forget find a project by name or folder', () => {
    const { place, parent, workspace } = setUp();
    const a = workspace('app', join(parent, 'one'));
    const b = workspace('app', join(parent, 'two'));
    registerProject(a.root, 'init', a.storeId, place);
    registerProject(b.root, 'init', b.storeId, place);
    expect(listProjectEntries(place).map((e) => e.name)).toEqual(['app', 'app-2']);

    expect(renameProject('app-2', '  Billing API ', place).name).toBe('Billing API');
    expect(findProject('billing api', place).root).toBe(b.root); // names are found in any case
    expect(() => renameProject('app', 'BILLING API', place)).toThrow(/another project is called/);
    for (const bad of ['', '   ', 'a\nb', 'x'.repeat(61), 'bell\u0007'])
      expect(() => renameProject('app', bad, place)).toThrow(/1 to 60 characters/);

    const forgotten = forgetProject(join(parent, 'one', 'app'), place); // by folder
    expect(forgotten.name).toBe('app');
    expect(readFileSync(Kernel.storePath(a.root)).length).toBeGreaterThan(0); // its store is untouched
    expect(() => forgetProject('app', place)).toThrow(expect.objectContaining({ code: 'not_found', hint: 'your projects: Billing API' }));
    expect(listProjectEntries(place).map((e) => e.name)).toEqual(['Billing API']);
  });

  test('a folder that moved is noticed: the same store opened from its new place takes its entry along', () => {
    const { place, parent, workspace } = setUp();
    const web = workspace('web');
    registerProject(web.root, 'init', web.storeId, place);
    renameProject('web', 'Website', place);
    const moved = join(parent, 'web-moved');
    renameSync(web.root, moved);
    expect(summarizeProject(findProject('Website', place))).toMatchObject({
      state: 'missing',
      problem: 'its folder is gone (moved or deleted)',
    });

    const found = registerProject(moved, 'vscode', readStoreId(moved), place);
    expect(found.change).toBe('moved');
    expect(listProjectEntries(place)).toEqual([expect.objectContaining({ name: 'Website', root: moved, movedFrom: web.root })]);
  });

  test('a copy of a workspace beside the original is a project of its own, not a move', () => {
    const { place, parent, workspace } = setUp();
    const web = workspace('web');
    registerProject(web.root, 'init', web.storeId, place);
    const copy = join(parent, 'web-copy');
    mkdirSync(join(copy, '.loopx'), { recursive: true });
    writeFileSync(Kernel.storePath(copy), readFileSync(Kernel.storePath(web.root)));
    expect(readStoreId(copy)).toBe(web.storeId);
    expect(registerProject(copy, 'vscode', web.storeId, place).change).toBe('added');
    expect(listProjectEntries(place).map((e) => e.root)).toEqual([web.root, copy]);
  });

  test('a damaged list is named as such, never fails an init, and is not overwritten', () => {
    const { place, workspace } = setUp();
    const api = workspace('api');
    mkdirSync(join(place.env.LOOPX_CONFIG_DIR), { recursive: true });
    writeFileSync(projectsPath(place), 'not a database at all, and long enough to look like a header................');
    const before = readFileSync(projectsPath(place));
    expect(() => listProjectEntries(place)).toThrow(expect.objectContaining({ code: 'projects_damaged', exitCode: 6 }));
    expect(registerQuietly(api.root, 'init', api.storeId, place)).toMatch(/damaged or not a database/);
    expect(readFileSync(projectsPath(place))).toEqual(before);
  });

  test('a config folder that cannot be made (a file in its place) leaves the workspace unlisted, with the reason', () => {
    const { place, workspace } = setUp();
    const api = workspace('api');
    writeFileSync(place.env.LOOPX_CONFIG_DIR, 'a file where the folder should be');
    expect(registerQuietly(api.root, 'init', api.storeId, place)).toMatch(/EEXIST|ENOTDIR|not a directory|exists/i);
  });
});

describe("a project's summary", () => {
  test('counts what waits on a person, the turns running and the last change, from the store itself', () => {
    const { place, workspace } = setUp();
    const api = workspace('api');
    const kernel = Kernel.open(api.root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
    const goal = createGoal(kernel, { title: 'Ship' });
    const todo = addTodo(kernel, { goalId: goal.id, title: 'Write it' });
    addTodo(kernel, { goalId: goal.id, title: 'Test it' });
    blockTodo(kernel, todo.id, 'needs the API key');
    askGate(kernel, { goalId: goal.id, question: 'Deploy on Friday?' });
    kernel.close();
    registerProject(api.root, 'init', api.storeId, place);
    const summary = summarizeProject(findProject('api', place));
    expect(summary).toMatchObject({ state: 'ok', store: 'local', problem: null, running: 0, goals: { active: 1, total: 1 } });
    expect(summary.waiting).toMatchObject({ total: 2, gates: 1, blocked: 1 });
    expect(waitingWords(summary.waiting!)).toBe('1 gate to decide, 1 blocked todo');
    expect(Date.parse(summary.lastActivity!)).toBeGreaterThan(Date.now() - 60_000);
  });

  test('a folder whose store is gone, and a store that cannot be read, are said in words', () => {
    const { place, workspace } = setUp();
    const a = workspace('a');
    const b = workspace('b');
    registerProject(a.root, 'init', a.storeId, place);
    registerProject(b.root, 'init', b.storeId, place);
    rmSync(join(a.root, '.loopx'), { recursive: true });
    writeFileSync(Kernel.storePath(b.root), 'garbage');
    const [sa, sb] = listProjectEntries(place).map((e) => summarizeProject(e));
    expect(sa).toMatchObject({ state: 'no_store', problem: 'its folder has no loopx store any more', waiting: null });
    expect(sb).toMatchObject({ state: 'unreadable', store: 'local', waiting: null });
    expect(sb!.problem).toMatch(/not a loopx store|damaged/);
  });
});
