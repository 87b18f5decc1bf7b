#!/usr/bin/env node
// The bundled ffmpeg: FFmpeg 5.1 compiled to WebAssembly (the npm package @ffmpeg/core, pinned in
// package.json and by its checksum in package-lock.json), run as a command line that behaves like
// the native one for what Stemforge asks of it: `ffmpeg-wasm.mjs ARGS` is `ffmpeg ARGS`, and
// bin/ffprobe-wasm.mjs is ffprobe. Used where the machine has no recent ffmpeg of its own
// (src/audio/ffmpeg-choice.ts). Plain JavaScript for any Node since 20.
//
// The package is built for browsers: its files live in memory and its standard streams are a
// console. Here the folders of the files the command line names are mounted at their own paths
// (reads and writes go straight to the files, so memory does not grow with the input) and file
// descriptors 0, 1 and 2 are the process's own, so `-i pipe:0`, `pipe:1` and error messages work
// as with a native ffmpeg. The decoder runs inside the WebAssembly sandbox: a malformed upload that
// trips a decoder bug can corrupt only the sandbox's memory, and reach only those folders.
import {
  closeSync,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
} from 'node:fs';
import { readSync, renameSync, rmdirSync, statSync, symlinkSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { chmodSync, truncateSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Emscripten's errno numbers (WASI's) for the host errors a file operation can meet.
const ERRNO = {
  EACCES: 2,
  EBADF: 8,
  EEXIST: 20,
  EINVAL: 28,
  EIO: 29,
  EISDIR: 31,
  ELOOP: 32,
  EMFILE: 33,
  ENAMETOOLONG: 37,
  ENOENT: 44,
  ENOSPC: 51,
  ENOTDIR: 54,
  ENOTEMPTY: 55,
  EPERM: 63,
  EROFS: 69,
  EXDEV: 75,
};
// open(2) flags the host understands: access mode, O_CREAT, O_EXCL, O_TRUNC, O_APPEND (the same
// numbers in Emscripten and on Linux); O_LARGEFILE, O_CLOEXEC and the like mean nothing here.
const OPEN_FLAGS = 3 | 64 | 128 | 512 | 1024;

/** A file system that forwards every call to the host's folder `mount.opts.root`. */
function hostFs(FS) {
  const fail = (err) => {
    if (err instanceof FS.ErrnoError) throw err;
    throw new FS.ErrnoError(ERRNO[err?.code] ?? ERRNO.EIO);
  };
  const guard =
    (fn) =>
    (...args) => {
      try {
        return fn(...args);
      } catch (err) {
        return fail(err);
      }
    };
  const realPath = (node) => {
    const parts = [];
    while (node.parent !== node) {
      parts.push(node.name);
      node = node.parent;
    }
    return join(node.mount.opts.root, ...parts.reverse());
  };
  const createNode = (parent, name, mode) => {
    const node = FS.createNode(parent, name, mode);
    node.node_ops = nodeOps;
    node.stream_ops = streamOps;
    return node;
  };
  const nodeOps = {
    getattr: guard((node) => {
      const s = lstatSync(realPath(node));
      return {
        dev: s.dev,
        ino: s.ino,
        mode: s.mode,
        nlink: s.nlink,
        uid: s.uid,
        gid: s.gid,
        rdev: s.rdev,
        size: s.size,
        atime: s.atime,
        mtime: s.mtime,
        ctime: s.ctime,
        blksize: s.blksize,
        blocks: s.blocks,
      };
    }),
    setattr: guard((node, attr) => {
      const path = realPath(node);
      if (attr.mode !== undefined) chmodSync(path, attr.mode);
      if (attr.timestamp !== undefined) utimesSync(path, new Date(attr.timestamp), new Date(attr.timestamp));
      if (attr.size !== undefined) truncateSync(path, attr.size);
    }),
    lookup: guard((parent, name) => createNode(parent, name, lstatSync(join(realPath(parent), name)).mode)),
    mknod: guard((parent, name, mode) => {
      const path = join(realPath(parent), name);
      if (FS.isDir(mode)) mkdirSync(path, mode & 0o7777);
      else writeFileSync(path, '', { mode: mode & 0o7777 });
      return createNode(parent, name, mode);
    }),
    rename: guard((node, newDir, newName) => {
      renameSync(realPath(node), join(realPath(newDir), newName));
      node.name = newName;
    }),
    unlink: guard((parent, name) => unlinkSync(join(realPath(parent), name))),
    rmdir: guard((parent, name) => rmdirSync(join(realPath(parent), name))),
    readdir: guard((node) => ['.', '..', ...readdirSync(realPath(node))]),
    symlink: guard((parent, name, target) => symlinkSync(target, join(realPath(parent), name))),
    readlink: guard((node) => readlinkSync(realPath(node))),
  };
  const streamOps = {
    open: guard((stream) => {
      if (FS.isFile(stream.node.mode)) stream.hostFd = openSync(realPath(stream.node), stream.flags & OPEN_FLAGS);
    }),
    close: guard((stream) => {
      if (stream.hostFd !== undefined) closeSync(stream.hostFd);
    }),
    read: guard((stream, buffer, offset, length, position) =>
      length === 0 ? 0 : readSync(stream.hostFd, buffer, offset, length, position),
    ),
    write: guard((stream, buffer, offset, length, position) =>
      writeSync(stream.hostFd, buffer, offset, length, position),
    ),
    llseek: guard((stream, offset, whence) => {
      let position = offset;
      if (whence === 1) position += stream.position;
      else if (whence === 2 && FS.isFile(stream.node.mode)) position += fstatSync(stream.hostFd).size;
      if (position < 0) throw new FS.ErrnoError(ERRNO.EINVAL);
      return position;
    }),
  };
  return { mount: (mount) => createNode(null, '/', statSync(mount.opts.root).mode) };
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Runs a blocking read or write on one of the process's descriptors, waiting out EAGAIN. */
function retrying(fn) {
  for (;;) {
    try {
      return fn();
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}

/** Replaces the module's console-backed stdin, stdout and stderr by the process's descriptors 0, 1, 2. */
function useProcessStdio(FS) {
  for (const fd of [0, 1, 2]) {
    const dev = FS.makedev(64, fd);
    FS.registerDevice(dev, {
      open: () => undefined,
      close: () => undefined,
      read: (_stream, buffer, offset, length) => retrying(() => readSync(fd, buffer, offset, length, null)),
      write: (_stream, buffer, offset, length) => {
        try {
          return retrying(() => writeSync(fd, buffer, offset, length));
        } catch (err) {
          // The reader went away (it had what it wanted): stop, as ffmpeg would on SIGPIPE.
          if (err.code === 'EPIPE') process.exit(1);
          throw err;
        }
      },
    });
    FS.mkdev(`/dev/process-${fd}`, 0o666, dev);
    FS.close(FS.getStream(fd));
    const stream = FS.open(`/dev/process-${fd}`, fd === 0 ? 0 : 1);
    if (stream.fd !== fd) throw new Error(`could not attach descriptor ${fd}`);
  }
}

/**
 * The host folders a command line names: the folder of each argument that is an existing file or
 * folder, or a file to be created in an existing folder. Only these are mounted, at their own
 * paths, so a decoder fault inside the module can reach no other file of the machine.
 */
export function foldersNamed(args, cwd = process.cwd()) {
  const folders = new Set();
  for (const arg of args) {
    if (arg.startsWith('-') || /^[a-z]+:/.test(arg)) continue; // options, pipe:0, file:... URLs
    const path = resolve(cwd, arg);
    try {
      folders.add(statSync(path).isDirectory() ? path : dirname(path));
    } catch {
      if (existsSync(dirname(path))) folders.add(dirname(path));
    }
  }
  // A folder inside another named one is reached through it; the root cannot be remounted.
  folders.delete('/');
  const sorted = [...folders].sort();
  return sorted.filter((f) => !sorted.some((g) => g !== f && f.startsWith(`${g}/`)));
}

/** Mounts `folders` of the machine at their own paths and makes the working folder the process's. */
function mountHost(FS, folders) {
  const HOSTFS = hostFs(FS);
  for (const folder of folders) {
    FS.mkdirTree(folder);
    FS.mount(HOSTFS, { root: folder }, folder);
  }
  // Relative paths resolve as outside (the working folder exists in the module, mounted or not).
  FS.mkdirTree(process.cwd());
  FS.chdir(process.cwd());
}

/** Runs `program` ('ffmpeg' or 'ffprobe') with `args`; exits with its status. */
export async function runBundled(program, args) {
  // The package's build expects a web worker's globals; it reads nothing else from them.
  globalThis.self ??= { location: { href: fileURLToPath(import.meta.url) } };
  const require = createRequire(import.meta.url);
  const createCore = require('@ffmpeg/core');
  const wasmBinary = readFileSync(require.resolve('@ffmpeg/core/wasm'));
  const core = await createCore({ wasmBinary });
  useProcessStdio(core.FS);
  mountHost(core.FS, foldersNamed(args));
  // ffmpeg ends through exit(), which the build turns into `ret` (its own exec() returns it);
  // ffprobe returns from main(), and the build's wrapper drops that value, so it is called as is.
  let status;
  if (program === 'ffprobe') {
    try {
      status = core._ffprobe(args.length + 1, core.stringsToPtr(['./ffprobe', ...args]));
    } catch (err) {
      // An early exit() (after -version, say) aborts the module once it has set `ret`.
      if (!String(err?.message).startsWith('Aborted')) throw err;
      status = core.ret;
    }
  } else status = core.exec(...args);
  process.exit(status === 0 ? 0 : 1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runBundled('ffmpeg', process.argv.slice(2));
}
