import * as assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { Kernel } from '../../src/kernel/kernel';
import { askGate } from '../../src/kernel/gates/gates';
import { createGoal } from '../../src/kernel/goals/goals';
import { forgetProject, listProjectEntries, registerProject } from '../../src/kernel/projects/projectRegistry';
import { kernelStoreId } from '../../src/kernel/projects/storeIdentity';
import type { ProjectNode } from '../../src/extension/views/projectsTree';
import { REPO, app, otherWriter, vscodeHuman, withAnswers, workspaceRoot } from './support';
import { handleDecideUri } from '../../src/extension/dashboard/decideLinks';
import { DashboardHost } from '../../src/extension/dashboard/dashboardHost';
import { decideLink } from '../../src/runtime/dashboard/decideLink';
import { getGate } from '../../src/kernel/gates/gateQueries';

const label = (item: vscode.TreeItem) => (typeof item.label === 'string' ? item.label : (item.label?.label ?? ''));

/** Two other workspaces of the person's, one with a gate waiting: listed as `loopx init` would list them. */
function otherProjects(): { parent: string; docs: string } {
  const parent = mkdtempSync(join(tmpdir(), 'loopx-host-projects-'));
  const made = (name: string, gate: boolean) => {
    const root = join(parent, name);
    const { kernel } = Kernel.init(root, { actor: vscodeHuman });
    if (gate) askGate(kernel, { goalId: createGoal(kernel, { title: 'Release' }).id, question: 'Ship 2.0 today?' });
    registerProject(root, 'init', kernelStoreId(kernel));
    kernel.close();
    return root;
  };
  made('host-api', true);
  return { parent, docs: made('host-docs', false) };
}

suite('Projects view', () => {
  test("lists the person's other projects, what waits first, never this window's own; a moved folder is said; Forget asks first", async () => {
    const loopx = await app();
    const { parent, docs } = otherProjects();
    try {
      // This window's folder is listed too (VS Code opened it), and left out of the view.
      assert.ok(listProjectEntries().some((e) => e.root === workspaceRoot()));
      await loopx.projects.refresh();
      const rows = () => loopx.projects.tree.getChildren().map((n) => loopx.projects.tree.getTreeItem(n));
      const ours = () => rows().filter((r) => /^host-/.test(label(r)));
      assert.deepEqual(
        ours().map((r) => [label(r), r.description]),
        [
          ['host-api', '1 gate to decide'],
          ['host-docs', 'nothing waits on you'],
        ],
      );
      assert.ok(!rows().some((r) => r.id === `project:${workspaceRoot()}`));
      const apiRow = ours()[0]!;
      assert.equal(apiRow.contextValue, 'loopx:project:ok');
      assert.equal(apiRow.command?.command, 'loopx.openProject');
      const tip = (apiRow.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' ').replace(/\\/g, '');
      assert.match(
        tip,
        /host-api[^]*1 gate to decide[^]*1 goal running · last change (just now|\d+s ago)[^]*Click to open it in a new window/,
      );

      renameSync(docs, `${docs}-moved`);
      await loopx.projects.refresh();
      const moved = ours().find((r) => label(r) === 'host-docs')!;
      assert.equal(moved.description, 'its folder is gone (moved or deleted)');
      assert.equal(moved.contextValue, 'loopx:project:missing');
      assert.equal(moved.command, undefined);

      const node = loopx.projects.tree.getChildren().find((n) => n.project.name === 'host-docs') as ProjectNode;
      const kept = await withAnswers({ warnings: [undefined] }, async () => {
        await vscode.commands.executeCommand('loopx.forgetProject', node);
      });
      assert.match(kept.prompts[0] ?? '', /^warning \(modal\): Take host-docs off your projects\?/);
      assert.ok(listProjectEntries().some((e) => e.name === 'host-docs'));
      await withAnswers({ warnings: ['Forget'] }, async () => {
        await vscode.commands.executeCommand('loopx.forgetProject', node);
      });
      assert.ok(!listProjectEntries().some((e) => e.name === 'host-docs'));
      assert.ok(!ours().some((r) => label(r) === 'host-docs'));
      // (The host's list may hold other suites' folders too: what is counted, not how many.)
      assert.match(String(loopx.projects.view.description), /^[1-9]\d* waiting on you$/);

      const apiNode = loopx.projects.tree.getChildren().find((n) => n.project.name === 'host-api') as ProjectNode;
      const renamed = await withAnswers({ inputs: ['', 'Billing API'] }, async () => {
        await vscode.commands.executeCommand('loopx.renameProject', apiNode); // an empty name: the box says why
        await vscode.commands.executeCommand('loopx.renameProject', apiNode);
      });
      assert.match(renamed.prompts.join('\n'), /refused: a project name is 1 to 60 characters/);
      assert.ok(ours().length === 0 && rows().some((r) => label(r) === 'Billing API'));
    } finally {
      for (const e of listProjectEntries()) if (e.root.startsWith(parent)) forgetProject(e.root);
      rmSync(parent, { recursive: true, force: true });
    }
  });

  test("a dashboard's decide link shows the decision's usual modal here; a link LoopX does not know changes nothing", async () => {
    const loopx = await app();
    const person = Kernel.open(workspaceRoot(), { actor: vscodeHuman });
    const goal = createGoal(person, { title: 'Release 2.0' });
    person.close();
    const codex = otherWriter('codex');
    const gate = askGate(codex, { goalId: goal.id, question: 'Publish the release notes?' });
    codex.close();
    const memory = new Map<string, unknown>();
    const state = {
      get: (k: string) => memory.get(k),
      update: async (k: string, v: unknown) => void memory.set(k, v),
      keys: () => [...memory.keys()],
    };
    const link = decideLink('vscode', workspaceRoot(), { kind: 'gate', id: gate.id })!;
    const shown = await withAnswers({ picks: [(items) => items.find((i) => i.label === 'Approve…')], warnings: ['Approve'] }, () =>
      handleDecideUri(vscode.Uri.parse(link), state as unknown as vscode.Memento, [workspaceRoot()], loopx.log),
    );
    assert.match(shown.prompts[0] ?? '', new RegExp(`^pick: LoopX: the gate ${gate.id}, from the dashboard \\[Approve… \\| Reject…\\]`));
    assert.match(
      shown.prompts[1] ?? '',
      new RegExp(`^warning \\(modal\\): Approve gate ${gate.id} on goal ${goal.id}\\? \\| Publish the release notes\\?`),
    );
    const decided = loopx.folders.all[0]!.session.requireKernel().read((db) => getGate(db, gate.id));
    assert.equal(decided.status, 'approved');
    assert.equal(decided.decidedBy, vscodeHuman.name);

    for (const odd of [
      link.replace('kind=gate', 'kind=shell'),
      link.replace(`id=${gate.id}`, 'id=Q1%3Brm'),
      link.replace('/decide', '/run'),
    ]) {
      const refused = await withAnswers({ notices: [] }, () =>
        handleDecideUri(vscode.Uri.parse(odd), state as unknown as vscode.Memento, [workspaceRoot()], loopx.log),
      );
      assert.deepEqual(refused.prompts, ['warning: LoopX: that link is not one LoopX opens.'], odd);
    }
    assert.equal(memory.size, 0);
  });

  test('Open Dashboard serves the page from this window and hands the browser its address with the secret after #', async () => {
    const loopx = await app();
    const opened: vscode.Uri[] = [];
    const host = new DashboardHost(vscode.Uri.file(REPO), loopx.log, async (uri) => {
      opened.push(uri);
      return true;
    });
    try {
      const url = await host.open();
      assert.equal(await host.open(), url, 'one server per window');
      assert.equal(opened.length, 2);
      // (code-server serves it through its own proxy path; a desktop window opens it as it is.)
      assert.match(opened[0]!.toString(true), /^http:\/\/127\.0\.0\.1:\d+\/(proxy\/\d+\/)?#secret=[\w-]{43}$/);
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'none'/);
      assert.equal((await fetch(`${url}app.js`)).status, 200);
      assert.equal((await fetch(`${url}api/snapshot`)).status, 401);
      const secret = /secret=([\w-]+)/.exec(opened[0]!.toString(true))?.[1];
      const snapshot = (await (await fetch(`${url}api/snapshot`, { headers: { Authorization: `Bearer ${secret}` } })).json()) as {
        projects: { root: string; store: string }[];
      };
      assert.ok(snapshot.projects.some((p) => p.root === workspaceRoot() && p.store === 'local'));
    } finally {
      host.dispose();
    }
  });
});
