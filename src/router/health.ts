import http from 'node:http';

/**
 * Health of the router's backends: `poll()` sends one GET /health to every backend at once; a backend is
 * marked unhealthy after `failureThreshold` failures in a row (a status other than 200, a connection
 * error, no answer within `timeoutMs`) and healthy again after `successThreshold` successes in a row.
 * The proxy calls `poll()` on a timer every health interval (tests call it directly).
 */

export interface HealthOptions {
  failureThreshold: number;
  successThreshold: number;
  timeoutMs: number;
}

export interface HealthTarget {
  readonly urls: readonly string[];
  isHealthy(worker: number): boolean;
  setHealthy(worker: number, healthy: boolean): void;
  /** Told of every change of state (the proxy logs it). */
  onChange?(url: string, healthy: boolean, why: string): void;
}

function probe(url: string, agent: http.Agent, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/health`, { agent, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? null : `GET /health answered ${res.statusCode}`));
      res.on('error', (err) => resolve(`GET /health failed: ${err.message}`));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => resolve(`GET /health failed: ${err.message}`));
  });
}

export class HealthChecker {
  private readonly failures: number[];
  private readonly successes: number[];
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly target: HealthTarget,
    private readonly options: HealthOptions,
  ) {
    this.failures = target.urls.map(() => 0);
    this.successes = target.urls.map(() => 0);
  }

  private running: Promise<void> | null = null;

  /** One poll of every backend; a call while one is still running waits for that one instead. */
  poll(): Promise<void> {
    this.running ??= this.pollOnce().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pollOnce(): Promise<void> {
    const results = await Promise.all(
      this.target.urls.map((url) => probe(url, this.agent, this.options.timeoutMs)),
    );
    results.forEach((failure, i) => {
      const healthy = this.target.isHealthy(i);
      if (failure === null) {
        this.failures[i] = 0;
        this.successes[i]!++;
        if (!healthy && this.successes[i]! >= this.options.successThreshold) {
          this.target.setHealthy(i, true);
          this.target.onChange?.(this.target.urls[i]!, true, 'GET /health answered 200');
        }
      } else {
        this.successes[i] = 0;
        this.failures[i]!++;
        if (healthy && this.failures[i]! >= this.options.failureThreshold) {
          this.target.setHealthy(i, false);
          this.target.onChange?.(this.target.urls[i]!, false, failure);
        }
      }
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
