// Preloaded into a service by `pnpm bench --alloc-prof NAME` (node --import): samples the
// process's allocations with V8's sampling heap profiler, counting objects the garbage collector
// has already freed too (node's own --heap-prof keeps only what is still alive at exit, which
// says nothing about what a request allocates). The profile is written when the process is told
// to stop, to ALLOCATION_PROFILE_DIR/<pid>.heapprofile (Chrome DevTools' Memory tab opens it).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const directory = process.env.ALLOCATION_PROFILE_DIR ?? '.';
const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: 16_384,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});

let written = false;
function writeProfile() {
  if (written) return;
  written = true;
  // An in-thread inspector session answers synchronously, before the service's own handler exits.
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (!error) writeFileSync(path.join(directory, `${process.pid}.heapprofile`), JSON.stringify(result.profile));
  });
}
for (const signal of ['SIGTERM', 'SIGINT']) process.prependListener(signal, writeProfile);
process.on('exit', writeProfile);
