import { compilePattern } from "./pattern";

/**
 * Training progress, recognised the same way everywhere: in the shipped hang and start cut-off templates
 * (as a HyperPod `logPattern`, Python `re.match` syntax that RE2 also runs), in the agent's "no progress
 * for N s" display and in the dry-run. One pattern, so what the console calls progress is what the rules
 * count. A line is progress when it is one of:
 * - a step (or epoch, or update) counter and a training figure on the same line, in either order: `step: 200  loss: …` (torchtitan),
 *   `iteration 200/ 500000 | consumed samples …` (Megatron), `iter 100: loss 4.23, time …` (nanoGPT),
 *   `[Rank 0] step=10, skipped=0, lr=…` (DeepSpeed), `Epoch 1 | iter 100 step 25 | loss train: …` (litgpt),
 *   `[batch=10/100]: Train loss …` (Composer). A bare counter (`Total optimization steps = 1,000`,
 *   `loading checkpoint at iteration 2000`) is not: launch banners and checkpoint messages carry them;
 * - a Hugging Face Trainer log dict (`{'loss': 2.0491, 'grad_norm': …}`, `{'eval_loss': …}`, a model's own
 *   loss first: `{'train/backbone_loss': …}`);
 * - a training, validation or test progress bar (tqdm as the Trainer, Lightning and NeMo draw it:
 *   `Epoch 0:  12%|█▏   | 120/1000 [00:40<04:53, …]`), but not a loading, download or map bar;
 *   Lightning's bar over an iterable of unknown length counts too (`Epoch 2: : 17671it [1:05:34, …]`);
 * - a metric logger's line (`Epoch: [0]  [ 120/2669]  eta: …`), a bare step number before its loss
 *   (`490 | loss 5.7543 | …`), DeepSpeed's throughput timer (`0/40, SamplesPerSec=83.48…`), tacotron2's
 *   `Train loss 15 47.531357 Grad Norm …`, NeMo-RL's step header (`Step 683/3710 ======…`);
 * - a DeepSpeed or Megatron timer line of a step's phases (`time (ms) | fwd_microstep: …`, `… | forward-backward: …`),
 *   not the set-up timers (`time (ms) | model-and-optimizer-setup: …`).
 * Lines are read as Python's readline gives them (a bar redrawn with "\r" is one line per redraw).
 */

const PREFIX = String.raw`(?:\[\w+\]:)?`;
const COUNTER = String.raw`(?:^|[^\w.=/'-])(?:(?:global_|current_)?steps?|num_updates|iter(?:ation)?|batch|epoch)\b['"]?\s*[:=#]?\s*\[?\s*[0-9]+`;
const FIGURE = String.raw`(?:\b|_)(?:loss|lr|[tw]ps|tokens?|samples|g(?:rad_)?norm|throughput|reward|acc|ppl)\b`;
/** A figure's value, where the figure comes before its counter (`Loss nan … Global Step: 30`). */
const VALUE = String.raw`['"]?\s*[:=]?\s*(?:[0-9]|nan|inf)`;
/** A bare step number opening the line before its loss (`490 | loss 5.7543 | lr …`). */
const NUMBERED = String.raw`[0-9]+(?:/[0-9]+)?\s*[|:]\s*(?:train )?loss\b`;
/**
 * Metric loggers that count the batch in brackets: torchvision's `Epoch: [0]  [ 120/2669]  eta: …`,
 * mmengine's `Epoch(train) [1][200/735]  lr: …`, `Train - Epoch: [127/300][ 35/464]\tTime …`.
 */
const LOGGER = String.raw`\[\s*[0-9]+/[0-9]+\]\s+(?:eta|lr|time|loss)\b`;
/**
 * Keras's bar: `100/100 [==============================] - 142s 1s/step - loss: 0.9857`, or its line without the
 * bar (`verbose=2`: `3/3 - 65s - loss: 0.2053`).
 */
const KERAS = String.raw`[0-9]+/[0-9]+ [\[=>.\] ]*- .*loss`;
/** DeepSpeed's throughput timer: `[timer.py:189:stop] 0/40, SamplesPerSec=83.48…`. */
const SAMPLES_TIMER = "SamplesPerSec=[0-9]";
/** A Trainer log dict; not the end-of-training summary (`{'train_runtime': …}`). */
const TRAINER_DICT = String.raw`\{'(?:[\w/]*loss|eval_\w+|grad_norm|learning_rate|epoch)': `;
/** tacotron2's `Train loss 15 47.531357 Grad Norm 11.6 2.96s/it` and NeMo-RL's `Step 683/3710 =====…` header. */
const OTHER = "train loss [0-9]+ [0-9]|step [0-9]+/[0-9]+ ==";
const BAR_NAME = String.raw`(?:(?:Epoch [0-9]+|Training|Valid|Eval|Sanity|Test|Predict|steps?|\[[^\]]*loss[^\]]*\])[^|%]*|\b[0-9]+):\s*`;
/** tqdm's `12%|█▏   | 120/1000 [`, its bar without the blocks `34% 1020/3000 [`, or `17671it [`. */
const BAR = String.raw`(?:[0-9]+%(?:\|[^|]*\|)?\s*[0-9]+/[0-9]+|[0-9]+it)\s*\[`;
const TIMER = String.raw`\btime \(ms\) \|.*\b(?:forward|backward|[fb]wd)`;

/** The pattern, as a HyperPod rule writes it (a template's `logPattern`). */
export const PROGRESS_PATTERN = `(?i)(?:${PREFIX}\\s*(?:${BAR}|${NUMBERED})|.*(?:${COUNTER}.*${FIGURE}|${FIGURE}${VALUE}.*${COUNTER}|${TRAINER_DICT}|${BAR_NAME}${BAR}|${TIMER}|${LOGGER}|${KERAS}|${SAMPLES_TIMER}|${OTHER})).*`;

const compiled = compilePattern(PROGRESS_PATTERN);
if (!compiled.ok) throw new Error(`PROGRESS_PATTERN: ${compiled.reason}`);
const progress = compiled.pattern;

/** Whether a line (as the rank printed it) reports training progress. */
export function isProgressLine(line: string): boolean {
  return progress.match(line) !== null;
}
