// A stand-in npm registry on 127.0.0.1 for `loopx update`'s tests, run as a process of its own (the tests drive
// loopx through a pseudo-terminal synchronously, which would block a server in the test's own process). It serves the
// folder given as its argument: GET /loopx answers loopx.json there (the packument, tarball URLs written as
// {registry}), GET /loopx/-/NAME.tgz the file NAME.tgz; anything else, or a missing loopx.json, is a 404 as npm's
// registry answers for a package that is not published. It prints its address on stdout, then serves until killed.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const folder = process.argv[2];
const server = createServer((request, response) => {
  const address = `http://127.0.0.1:${server.address().port}`;
  const url = new URL(request.url ?? '/', address);
  const packument = join(folder, 'loopx.json');
  const tarball = /^\/loopx\/-\/([\w.-]+\.tgz)$/.exec(url.pathname)?.[1];
  if (url.pathname === '/loopx' && existsSync(packument)) {
    response.setHeader('content-type', 'application/json');
    return response.end(readFileSync(packument, 'utf8').replaceAll('{registry}', address));
  }
  if (tarball && existsSync(join(folder, tarball))) {
    response.setHeader('content-type', 'application/octet-stream');
    return response.end(readFileSync(join(folder, tarball)));
  }
  response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not found' }));
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
