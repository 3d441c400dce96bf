import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every test file (and every loopx it spawns) keeps the key that proves a person's decisions in a folder of its own,
// never in the developer's config folder (src/kernel/humanKey.ts).
process.env.LOOPX_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'loopx-config-'));
