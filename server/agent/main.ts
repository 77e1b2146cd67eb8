import { createLogger } from "../log";
import { createAgent } from "./agent";
import { type AgentConfig, parseAgentArgs } from "./cli";
import { withEnvironment } from "./cli-env";
import { agentId, agentProcessEnv, takeAgentCredential } from "./env";
import { defaultRunner } from "./script-command";
import { createAgentServer, listen } from "./server";

/**
 * `rebound-agent [flags] script [args]` (bin/rebound-agent.mjs): parse the flags, serve the agent API,
 * report READY once listening. /shutdown, SIGTERM and SIGINT stop the workers and exit 0; a second
 * SIGTERM/SIGINT kills the workers at once. Bad flags: one error line, exit 2.
 *
 * The agent's modules import each other with relative paths, not the "@/" alias: tsx reads the tsconfig of
 * the working directory, and the agent runs wherever the pod's command starts it.
 */

const logger = createLogger({ service: "rebound-agent" });

function configFromArgs(): AgentConfig {
  const parsed = parseAgentArgs(process.argv.slice(2));
  switch (parsed.kind) {
    case "help":
      process.stdout.write(`${parsed.text}\n`);
      process.exit(0);
      break;
    case "error":
      process.stderr.write(`rebound-agent: error: ${parsed.message} (see rebound-agent --help)\n`);
      process.exit(2);
      break;
    case "config": {
      const completed = withEnvironment(parsed.config, {
        argv: process.argv.slice(2),
        env: agentProcessEnv(),
      });
      if (!completed.ok) {
        process.stderr.write(`rebound-agent: error: ${completed.error}\n`);
        process.exit(2);
      }
      return completed.config;
    }
    default:
      return parsed satisfies never;
  }
  throw new Error("unreachable");
}

async function main(): Promise<void> {
  const credential = takeAgentCredential();
  const config = configFromArgs();
  for (const warning of config.warnings) logger.warn(warning);
  const agent = createAgent({
    config,
    agentId: agentId(),
    baseEnv: agentProcessEnv(),
    runner: defaultRunner(),
    logger,
    output: { write: (stream, text) => void process[stream].write(text) },
    now: Date.now,
  });
  if (credential === null)
    logger.warn("no REBOUND_AGENT_CREDENTIAL: this agent answers anyone who reaches its port");
  const server = createAgentServer({ agent, logger, credential });
  const exit = (code: number) => {
    server.close(() => process.exit(code));
    server.closeIdleConnections();
    setTimeout(() => process.exit(code), 1000).unref();
  };
  process.on("exit", () => agent.killAll());
  let terminating = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (terminating) {
      agent.killAll();
      process.exit(1);
    }
    terminating = true;
    logger.info("terminating", { signal });
    void agent.terminate().then(() => exit(0));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  const port = await listen(server, { host: config.serverHost, port: config.serverPort });
  process.stdout.write(`rebound-agent listening on http://${config.serverHost}:${port}\n`);
  agent.markReady();
  await agent.whenShutdown();
  logger.info("shutdown complete");
  exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`rebound-agent: error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
