import * as tf from '@tensorflow/tfjs';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';

// tfjs-backend-wasm 4.22 runs Slice and Concat in JavaScript, and slowly for face-api's use:
// Slice copies the whole picture out of the WebAssembly heap (readSync) to cut out each face, and
// Concat copies element by element through subarray() when face-api normalises colour channels
// (one call per pixel). Profiled on the demo photos they were half the CPU time of an
// examination. These replacements read the heap in place and copy short runs in a plain loop;
// they give the same bytes (checked by the tests' descriptors), and defer to the original
// kernel for what they do not handle (strings, a single input).

/** The shape of the two kernels' arguments, as tfjs passes them. */
interface KernelArgs {
  inputs: tf.NamedTensorInfoMap;
  backend: object;
  attrs?: tf.NamedAttrMap;
}

let installed = false;

function originalKernel(name: string): tf.KernelFunc {
  const config = tf.getKernel(name, 'wasm');
  if (config === undefined) throw new Error(`tfjs-backend-wasm has no ${name} kernel to replace`);
  return config.kernelFunc;
}

function sliceKernel(original: tf.KernelFunc): tf.KernelFunc {
  return (args: KernelArgs) => {
    const x = args.inputs['x'];
    if (x === undefined || x.dtype === 'string') return original(args);
    const backend = args.backend as BackendWasm;
    const attrs = args.attrs as { begin: number | number[]; size: number | number[] };
    const [begin = [], size = []] = tf.slice_util.parseSliceParams(x, attrs.begin, attrs.size);
    // makeOutput may grow the heap, which detaches earlier views: take the views after it.
    const out = backend.makeOutput(size, x.dtype);
    const total = tf.util.sizeFromShape(size);
    if (total === 0) return out;
    const from = backend.typedArrayFromHeap(x);
    const to = backend.typedArrayFromHeap(out);
    const rank = x.shape.length;
    if (rank === 0) {
      to.set(from.subarray(0, 1));
      return out;
    }
    const strides = tf.util.computeStrides(x.shape);
    const run = size[rank - 1] ?? 1;
    const at = new Array<number>(rank - 1).fill(0);
    // Copy one run along the last axis at a time, stepping the outer indices like an odometer.
    for (let written = 0; written < total; written += run) {
      let offset = begin[rank - 1] ?? 0;
      for (let d = 0; d < rank - 1; d += 1) offset += ((begin[d] ?? 0) + (at[d] ?? 0)) * (strides[d] ?? 0);
      to.set(from.subarray(offset, offset + run), written);
      for (let d = rank - 2; d >= 0; d -= 1) {
        const next = (at[d] ?? 0) + 1;
        if (next < (size[d] ?? 0)) {
          at[d] = next;
          break;
        }
        at[d] = 0;
      }
    }
    return out;
  };
}

function concatKernel(original: tf.KernelFunc): tf.KernelFunc {
  return (args: KernelArgs) => {
    const all = Object.values(args.inputs).filter((t): t is tf.TensorInfo => t !== undefined);
    const first = all[0];
    const inputs = all.filter((t) => tf.util.sizeFromShape(t.shape) > 0);
    if (first === undefined || first.dtype === 'string' || inputs.length < 2) return original(args);
    const backend = args.backend as BackendWasm;
    const axis =
      tf.util.parseAxisParam((args.attrs as { axis: number | number[] }).axis, first.shape)[0] ?? 0;
    const outShape = tf.backend_util.computeOutShape(
      all.map((t) => t.shape),
      axis,
    );
    const out = backend.makeOutput(outShape, first.dtype);
    const rows = tf.util.sizeFromShape(first.shape.slice(0, axis));
    const widths = inputs.map((t) => tf.util.sizeFromShape(t.shape.slice(axis)));
    const rowWidth = widths.reduce((sum, w) => sum + w, 0);
    const to = backend.typedArrayFromHeap(out);
    let column = 0;
    inputs.forEach((input, i) => {
      const from = backend.typedArrayFromHeap(input);
      const width = widths[i] ?? 0;
      for (let row = 0; row < rows; row += 1) {
        const source = row * width;
        const target = row * rowWidth + column;
        if (width >= 64) {
          to.set(from.subarray(source, source + width), target);
        } else {
          for (let k = 0; k < width; k += 1) to[target + k] = from[source + k] ?? 0;
        }
      }
      column += width;
    });
    return out;
  };
}

/** Replaces tfjs-backend-wasm's Slice and Concat kernels with in-place versions (once per thread). */
export function installWasmCopyKernels(): void {
  if (installed) return;
  const slice = originalKernel('Slice');
  const concat = originalKernel('Concat');
  tf.unregisterKernel('Slice', 'wasm');
  tf.registerKernel({ kernelName: 'Slice', backendName: 'wasm', kernelFunc: sliceKernel(slice) });
  tf.unregisterKernel('Concat', 'wasm');
  tf.registerKernel({ kernelName: 'Concat', backendName: 'wasm', kernelFunc: concatKernel(concat) });
  installed = true;
}
