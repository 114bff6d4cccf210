/**
 * The seccomp filter of a bubblewrap box, as the classic-BPF program `bwrap --seccomp FD` loads. It makes a
 * few system calls fail with EPERM: kernel keyrings (keys outlive a run in a reused box, so a run could
 * leave a message for the next), ptrace and cross-process memory access (a run could otherwise inspect
 * its own supervisor's siblings), and kernel interfaces that sandboxes such as Docker's default profile
 * close as attack surface (bpf, perf_event_open, userfaultfd, io_uring). System calls of a foreign ABI
 * (32-bit calls on x86_64: ENOSYS; x32 calls: EPERM) are refused, so the filter cannot be sidestepped
 * through another system call table.
 */

const BLOCKED = ['add_key', 'request_key', 'keyctl', 'ptrace', 'process_vm_readv', 'process_vm_writev', 'bpf', 'perf_event_open', 'userfaultfd', 'io_uring_setup', 'io_uring_enter', 'io_uring_register'] as const;
type Blocked = (typeof BLOCKED)[number];

interface Architecture {
  audit: number;
  /** x86_64's x32 ABI marks its system call numbers with this bit. */
  x32Bit?: number;
  numbers: Record<Blocked, number>;
}

const ARCHITECTURES: Partial<Record<NodeJS.Architecture, Architecture>> = {
  x64: {
    audit: 0xc000003e,
    x32Bit: 0x40000000,
    numbers: {
      add_key: 248,
      request_key: 249,
      keyctl: 250,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    numbers: {
      add_key: 217,
      request_key: 218,
      keyctl: 219,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
    },
  },
};

const LOAD_WORD = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JUMP_IF_EQUAL = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JUMP_IF_GREATER_OR_EQUAL = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const RETURN = 0x06; // BPF_RET | BPF_K
const ALLOW = 0x7fff0000;
const ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const ARCH_OFFSET = 4;
const NUMBER_OFFSET = 0;

interface Instruction {
  code: number;
  jumpTrue: number;
  jumpFalse: number;
  value: number;
}

/** The filter for this machine's architecture, or null where we have no system call table. */
export function seccompFilter(architecture: NodeJS.Architecture = process.arch): Buffer | null {
  const table = ARCHITECTURES[architecture];
  if (table === undefined) return null;
  const blocked = BLOCKED.map((name) => table.numbers[name]);
  // Layout: [arch check] [foreign: ENOSYS] [load nr] [x32 check]? [one jump per blocked call] [ALLOW] [EPERM]
  const program: Instruction[] = [];
  const add = (code: number, value: number, jumpTrue = 0, jumpFalse = 0) => program.push({ code, jumpTrue, jumpFalse, value });
  add(LOAD_WORD, ARCH_OFFSET);
  add(JUMP_IF_EQUAL, table.audit, 1, 0);
  add(RETURN, ERRNO | ENOSYS);
  add(LOAD_WORD, NUMBER_OFFSET);
  const checks = blocked.length + (table.x32Bit === undefined ? 0 : 1);
  // Jumps count instructions after the jump itself; EPERM is the last instruction, after ALLOW.
  const toDeny = (index: number) => checks - index;
  if (table.x32Bit !== undefined) add(JUMP_IF_GREATER_OR_EQUAL, table.x32Bit, toDeny(0), 0);
  const offset = table.x32Bit === undefined ? 0 : 1;
  blocked.forEach((number, index) => add(JUMP_IF_EQUAL, number, toDeny(index + offset), 0));
  add(RETURN, ALLOW);
  add(RETURN, ERRNO | EPERM);

  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(instruction.jumpTrue, index * 8 + 2);
    bytes.writeUInt8(instruction.jumpFalse, index * 8 + 3);
    bytes.writeUInt32LE(instruction.value >>> 0, index * 8 + 4);
  });
  return bytes;
}

export const SECCOMP_BLOCKED_CALLS: readonly string[] = BLOCKED;
