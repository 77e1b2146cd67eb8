// A worker that speaks HyperPod's IPC by hand (4-byte big-endian length + JSON), reaches the barrier,
// and after job_start never comes back to it: the agent's --inprocess-timeout must restart it.
import { connect } from "node:net";

// biome-ignore lint/style/noProcessEnv: a stand-in worker; its environment is its input
const env = process.env;
const localRank = Number(env.LOCAL_RANK ?? "0");
const socket = connect(env.HYPERPOD_ELASTICAGENT_SOCKET_SERVER_PATH ?? "");
const send = (type, body = {}) => {
  const payload = Buffer.from(
    JSON.stringify({ ...body, type, local_rank: localRank, client_id: `stubborn-${localRank}` }),
  );
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(payload.length, 0);
  socket.write(Buffer.concat([prefix, payload]));
};
socket.on("connect", () => {
  send("init");
  send("at_rcb_barrier");
  console.log(`stubborn rank at the barrier pid=${process.pid}`);
});
socket.on("data", (chunk) => console.log(`stubborn got ${chunk.subarray(4).toString("utf8")}`));
socket.on("close", () => process.exit(1));
setInterval(() => {}, 1000);
