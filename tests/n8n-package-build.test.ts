import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';

// Kept outside the package: n8n's strict community-node lint covers every file in it, and this
// test must spawn processes.
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../packages/n8n-nodes-gleaner');
const pkg = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };

/**
 * The published artefact as n8n sees it: `pnpm -r build` output, loaded with plain CommonJS
 * `require` in a separate Node process (n8n's loader), not through the test runner's TypeScript.
 */
describe('the built package', () => {
	beforeAll(() => {
		const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: packageRoot, encoding: 'utf8' });
		expect({ status: build.status, stderr: build.stderr }).toEqual({ status: 0, stderr: '' });
	}, 60_000);

	it('loads every listed node and credential with require and describes it', () => {
		const script = `
			const path = require('node:path');
			const out = [];
			for (const file of ${JSON.stringify([...pkg.n8n.nodes, ...pkg.n8n.credentials])}) {
				const mod = require(path.resolve(file));
				const [name, Type] = Object.entries(mod)[0];
				const instance = new Type();
				const d = instance.description ?? instance;
				out.push({ file, exported: name, name: d.name, displayName: d.displayName, icon: d.icon });
			}
			console.log(JSON.stringify(out));`;
		const run = spawnSync(process.execPath, ['-e', script], { cwd: packageRoot, encoding: 'utf8' });
		expect(run.stderr).toBe('');
		const loaded = JSON.parse(run.stdout) as Array<{ file: string; exported: string; name: string; displayName: string; icon: unknown }>;
		expect(loaded.map((l) => [l.exported, l.name])).toEqual([
			['Gleaner', 'gleaner'],
			['GleanerTrigger', 'gleanerTrigger'],
			['GleanerApi', 'gleanerApi'],
		]);
		for (const entry of loaded) expect(entry.displayName).toMatch(/^Gleaner/);
	});

	it('bundles the Gleaner client: the only require()s left are the n8n-workflow peer and Node built-ins', () => {
		const allowed = new Set(['n8n-workflow', 'crypto', 'node:crypto']);
		for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
			const code = readFileSync(path.join(packageRoot, file), 'utf8');
			const required = [...code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
			expect({ file, notAllowed: required.filter((r) => !allowed.has(r)) }).toEqual({ file, notAllowed: [] });
			// n8n Cloud's rules for community nodes (no-restricted-globals) hold for the bundled client too.
			expect({ file, globals: code.match(/\b(setTimeout|setInterval|setImmediate|process\.|globalThis|__dirname|__filename)\b/g) ?? [] }).toEqual({ file, globals: [] });
		}
		const action = readFileSync(path.join(packageRoot, 'dist/nodes/Gleaner/Gleaner.node.js'), 'utf8');
		// The client's polling and error typing are inside the bundle, not a dependency.
		expect(action).toMatch(/\bGleanerCore = class\b/);
		expect(action).toMatch(/\bGleanerTimeoutError = class\b/);
		const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { dependencies?: object; devDependencies: Record<string, string> };
		expect(manifest.dependencies ?? {}).toEqual({});
		expect(manifest.devDependencies['@gleaner/client']).toBe('workspace:*');
	});

	it('is ready to publish the n8n way: `release` (n8n-node release lints and builds first), a bare npm publish refused', () => {
		const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string; scripts: Record<string, string>; devDependencies: Record<string, string> };
		// The n8n-node CLI template's scripts; `build` is ours (it bundles @gleaner/client, see scripts/build.mjs),
		// and `n8n-node release` runs `<pm> run lint` and `<pm> run build` before it publishes.
		expect(manifest.scripts).toMatchObject({ dev: 'n8n-node dev', lint: 'n8n-node lint', 'lint:fix': 'n8n-node lint --fix', release: 'n8n-node release', prepublishOnly: 'n8n-node prerelease' });
		expect(manifest.devDependencies['release-it']).toBeDefined();
		// prepublishOnly lets a publish through only from `release` (RELEASE_MODE), so dist is always fresh.
		const cli = path.join(packageRoot, 'node_modules/.bin/n8n-node');
		const { RELEASE_MODE: _unset, ...env } = process.env;
		const bare = spawnSync(cli, ['prerelease'], { cwd: packageRoot, encoding: 'utf8', env });
		expect(bare.status).toBe(1);
		expect(bare.stdout).toMatch(/run release/);
		expect(spawnSync(cli, ['prerelease'], { cwd: packageRoot, encoding: 'utf8', env: { ...env, RELEASE_MODE: 'true' } }).status).toBe(0);
		// No install-time scripts (n8n lint no-forbidden-lifecycle-scripts).
		for (const forbidden of ['prepare', 'preinstall', 'install', 'postinstall']) expect(manifest.scripts[forbidden]).toBeUndefined();
		const changelog = readFileSync(path.join(packageRoot, 'CHANGELOG.md'), 'utf8');
		expect(changelog).toMatch(new RegExp(`^## \\[?${manifest.version.replace(/\./g, '\\.')}\\]?`, 'm'));
	});

	it('ships the icons and codex files next to the compiled nodes', () => {
		for (const file of [
			'dist/nodes/Gleaner/Gleaner.node.json',
			'dist/nodes/GleanerTrigger/GleanerTrigger.node.json',
			'dist/package.json',
		]) {
			expect({ file, exists: existsSync(path.join(packageRoot, file)) }).toEqual({ file, exists: true });
		}
		const icons = spawnSync('find', ['dist', '-name', '*.svg'], { cwd: packageRoot, encoding: 'utf8' }).stdout.trim().split('\n');
		expect(icons.length).toBeGreaterThanOrEqual(2);
		expect(JSON.parse(readFileSync(path.join(packageRoot, 'dist/package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
	});
});
