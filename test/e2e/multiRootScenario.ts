import { seedMultiRootWorkspace } from './multiRootWorkspace';
import { inWorkbench } from './ui';

const step = (n: number, what: string) => console.log(`  multi-root step ${n}: ${what}`);

/** A multi-root workspace as a person sees it: one Goals view grouped by folder, meters per folder, a folder pick. */
export async function runMultiRootScenario(): Promise<void> {
  const { file } = seedMultiRootWorkspace();
  await inWorkbench(file, 'multi-root-failure', async (wb) => {
    const { page } = wb;
    await wb.openLoopx();
    step(1, 'the Goals view groups the two stores by folder; each folder has its G1');
    await wb.row(/^\s*alpha\s*1 goal/).waitFor({ timeout: 30_000 });
    await wb.row(/^\s*beta\s*1 goal/).waitFor({ timeout: 30_000 });
    await wb.row('G1 Alpha goal').waitFor({ timeout: 30_000 });
    await wb.row('G1 Beta goal').waitFor({ timeout: 30_000 });
    await wb.statusItem('alpha: G1 0/20').waitFor({ timeout: 30_000 });
    await wb.statusItem('beta: G1 0/20').waitFor({ timeout: 30_000 });
    await wb.statusItem('1 gate').waitFor({ timeout: 30_000 });
    await wb.shot('multi-root-01-grouped');

    step(2, 'palette → Claim Todo asks which folder, then claims there');
    await wb.command('LoopX: Claim Todo');
    await wb.answer('beta', /Claim Todo/);
    await page.locator('.quick-input-widget .quick-input-list', { hasText: 'Ready to claim' }).waitFor({ timeout: 30_000 });
    await wb.answer('T1 Beta');
    await page
      .locator('.notification-toast', { hasText: /you hold T1 Beta todo/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await wb.row(/T1 Beta todo.*ada · lease/).waitFor({ timeout: 30_000 });
    await wb.shot('multi-root-02-claimed-in-beta');
  });
}
