// Child-process entry of the separation engine. A process of its own so that its malloc tunables
// apply (engine-env.ts), its memory goes back to the system when it ends, and a crash inside
// onnxruntime cannot take the API down with it.
import { productHtdemucs } from './htdemucs-models.ts';
import { serveSeparation } from './separation-server.ts';

serveSeparation(productHtdemucs);
