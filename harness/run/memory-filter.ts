// Where no cgroup counts a program's memory (cgroup.ts), the grader counts what it can see: its
// processes' resident memory and what its tmpfs hold. What it cannot see, the sandbox refuses, by a
// seccomp filter bubblewrap loads before it starts the program (`--seccomp`): memory that lives
// outside every process, in no file of a tmpfs the grader reads.
// - memfd_create and memfd_secret (a file in RAM that no folder shows), shmget and msgget (System V
//   shared memory and message queues, which outlive the processes that made them);
// - a user namespace of its own (unshare; clone with CLONE_NEWUSER), in which a program could mount a
//   tmpfs of any size; clone3, whose flags a filter cannot read, says ENOSYS, and glibc then uses clone;
// - every call of another ABI (x86-64's x32 and i386, arm64's arm32): their numbers differ.
// A classic BPF program, built here for x86-64 and arm64; elsewhere none, and the docs say so.
import { memoryCgroupsAvailable } from './cgroup.ts';

/** struct sock_filter's codes (linux/bpf_common.h). */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
/** seccomp's answers (linux/seccomp.h) and the errors given. */
const ALLOW = 0x7fff0000;
const ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
/** Offsets in struct seccomp_data: the call's number, its ABI, and the low half of its first argument. */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const CLONE_NEWUSER = 0x10000000;
/** x86-64's x32 calls are its own numbers with this bit set. */
const X32_BIT = 0x40000000;

interface Abi {
  /** AUDIT_ARCH_* */
  arch: number;
  clone: number;
  clone3: number;
  /** memfd_create, memfd_secret, shmget, msgget, unshare */
  refused: number[];
  /** x86-64's x32 calls come with its own ABI's AUDIT_ARCH */
  x32?: true;
}

const ABIS: Partial<Record<NodeJS.Architecture, Abi>> = {
  x64: { arch: 0xc000003e, clone: 56, clone3: 435, refused: [319, 447, 29, 68, 272], x32: true },
  arm64: { arch: 0xc00000b7, clone: 220, clone3: 435, refused: [279, 447, 194, 186, 97] },
};

let built: Buffer | null | undefined;

/** The filter every sandbox loads here, as `bwrap --seccomp` reads it: none where each program has a
 *  cgroup, which counts all of this, or where none is built for this machine's ABI. */
export function memoryFilter(): Buffer | undefined {
  if (memoryCgroupsAvailable()) return undefined;
  if (built === undefined) {
    const abi = ABIS[process.arch];
    built = abi ? Buffer.concat(program(abi)) : null;
  }
  return built ?? undefined;
}

function program(abi: Abi): Buffer[] {
  return [
    load(ARCH),
    jump(JEQ_K, abi.arch, 1, 0),
    answer(ERRNO | ENOSYS),
    load(NR),
    ...(abi.x32 ? [jump(JGE_K, X32_BIT, 0, 1), answer(ERRNO | ENOSYS)] : []),
    jump(JEQ_K, abi.clone3, 0, 1),
    answer(ERRNO | ENOSYS),
    ...abi.refused.flatMap((nr) => [jump(JEQ_K, nr, 0, 1), answer(ERRNO | EPERM)]),
    // last: a clone without CLONE_NEWUSER, and every other call, is allowed
    jump(JEQ_K, abi.clone, 0, 3),
    load(ARG0),
    jump(JSET_K, CLONE_NEWUSER, 0, 1),
    answer(ERRNO | EPERM),
    answer(ALLOW),
  ];
}

function instruction(code: number, jumpTrue: number, jumpFalse: number, k: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeUInt16LE(code, 0);
  bytes.writeUInt8(jumpTrue, 2);
  bytes.writeUInt8(jumpFalse, 3);
  bytes.writeUInt32LE(k >>> 0, 4);
  return bytes;
}

const load = (offset: number) => instruction(LD_W_ABS, 0, 0, offset);
/** A comparison with `k`: on to the next instruction plus `jumpTrue` or `jumpFalse`. */
const jump = (code: number, k: number, jumpTrue: number, jumpFalse: number) => instruction(code, jumpTrue, jumpFalse, k);
const answer = (value: number) => instruction(RET_K, 0, 0, value);
