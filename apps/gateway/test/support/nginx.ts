import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderGatewayConfig, upstreamServers } from '../../src/index';

/** Debian's nginx (apt-get install nginx-light), or undefined when it is not installed. */
export function findNginx(): string | undefined {
  for (const candidate of [process.env.NGINX_BINARY, '/usr/sbin/nginx', '/usr/local/sbin/nginx']) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The main nginx.conf around the gateway template, the way the official image wraps its
 * conf.d: here with every path under one temporary folder, so no root and no /var are needed.
 */
export function writeNginxConfig(options: {
  dir: string;
  port: number;
  authAddresses: string[];
  apiAddresses: string[];
}): { configFile: string; accessLog: string; errorLog: string } {
  const { dir } = options;
  mkdirSync(path.join(dir, 'temp'), { recursive: true });
  // Run as root, nginx's workers are `nobody`: they must reach the temp folders.
  chmodSync(dir, 0o755);
  const accessLog = path.join(dir, 'access.log');
  const errorLog = path.join(dir, 'error.log');
  const gateway = renderGatewayConfig({
    GATEWAY_PORT: `127.0.0.1:${options.port}`,
    GATEWAY_RESOLVER: '127.0.0.1',
    GATEWAY_ACCESS_LOG: accessLog,
    AUTH_SERVERS: upstreamServers(options.authAddresses),
    CONTACTS_API_SERVERS: upstreamServers(options.apiAddresses),
  });
  writeFileSync(path.join(dir, 'gateway.conf'), gateway);
  const temp = (name: string) => path.join(dir, 'temp', name);
  const configFile = path.join(dir, 'nginx.conf');
  writeFileSync(
    configFile,
    `daemon off;
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log ${errorLog} notice;
events { worker_connections 1024; }
http {
  default_type application/octet-stream;
  keepalive_timeout 65;
  client_body_temp_path ${temp('client_body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  include ${path.join(dir, 'gateway.conf')};
}
`,
  );
  return { configFile, accessLog, errorLog };
}

/** `nginx -t`: the configuration is valid (throws with nginx's own message when it is not). */
export function checkNginxConfig(binary: string, dir: string, configFile: string): string {
  try {
    return execFileSync(binary, ['-t', '-p', dir, '-e', path.join(dir, 'error.log'), '-c', configFile], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`nginx -t failed:\n${stderr ?? ''}${stdout ?? ''}`);
  }
}

export interface AccessLogEntry {
  request_id: string;
  method: string;
  uri: string;
  status: number;
  upstream_addr: string;
  upstream_status: string;
}

export interface RunningNginx {
  url: string;
  accessLog: string;
  errorLog: string;
  entries(): AccessLogEntry[];
  /** The access log line of one request (nginx writes it just after the response). */
  entry(requestId: string): Promise<AccessLogEntry>;
  stop(): Promise<void>;
}

export async function startNginx(
  binary: string,
  options: { dir: string; port: number; authAddresses: string[]; apiAddresses: string[] },
): Promise<RunningNginx> {
  const { configFile, accessLog, errorLog } = writeNginxConfig(options);
  checkNginxConfig(binary, options.dir, configFile);
  const child: ChildProcess = spawn(binary, ['-p', options.dir, '-e', errorLog, '-c', configFile], {
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${options.port}`;
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`${url}/gateway/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (attempt > 100 || child.exitCode !== null) {
      throw new Error(`nginx did not start:\n${existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const entries = () =>
    existsSync(accessLog)
      ? readFileSync(accessLog, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as AccessLogEntry)
      : [];
  return {
    url,
    accessLog,
    errorLog,
    entries,
    async entry(requestId) {
      for (let waited = 0; waited < 2_000; waited += 20) {
        const found = entries().find((entry) => entry.request_id === requestId);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`no access log line for request ${requestId}`);
    },
    async stop() {
      if (child.exitCode !== null || child.pid === undefined) return;
      // SIGQUIT: graceful; the master takes its worker along.
      process.kill(-child.pid, 'SIGQUIT');
      const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
