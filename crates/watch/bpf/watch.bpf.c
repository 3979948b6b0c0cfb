// SPDX-License-Identifier: (MIT OR Apache-2.0) AND GPL-2.0-only
// dbio watch: syscall, io_uring and block tracepoints filtered by tgid in
// the kernel, per-CPU power-of-two microsecond histograms per (tgid, fd,
// operation) and (tgid, file, io_uring opcode), and an optional ring
// buffer of every I/O call.
//
// Only static tracepoints (syscalls:sys_enter_* / sys_exit_*): their record
// layout is the stable syscall ABI (common header, __syscall_nr, then each
// argument as an 8-byte slot from offset 16; the exit record's ret at
// offset 16), as each event's `format` file in tracefs shows. No kernel
// function names and no vmlinux.h; the kernel's BTF only for the few
// CO-RE reads that name a file by its inode (io_uring, below).
//
// Block layer (block:block_rq_issue / block_rq_complete, and
// block:block_io_start where the kernel has it): those records are not
// an ABI (rwbs moved when Linux 6.x added ioprio), so the loader reads each
// field's offset from the event's `format` file and sets the `*_off`
// constants below before load; the programs copy the fields with
// bpf_probe_read_kernel at those offsets. Requests are paired by
// (device, sector), as plain tracepoints carry no request pointer: a
// request merged at its front after issue, or two flushes in flight on one
// device (sector 0, no data), pair wrongly or not at all, and the
// unmatched completions are counted.
//
// Paths are captured at open time (openat/openat2/open/creat, and
// dup/dup2/dup3/fcntl(F_DUPFD) for copies, fcntl(F_SETFL) for flags set
// later) and handed over through the `opens` ring buffer; close_range and sched_process_exec start a new
// generation for the descriptors they may have closed. With
// `device_target` set, every request on that device is keyed by its
// issuer, watched or not.
//
// io_uring requests (io_uring:io_uring_submit_req, io_uring_complete,
// io_uring_link, io_uring_queue_async_work) are timed from submission to
// completion per (process, file, opcode), keyed by the request pointer
// the records carry; their layout is read from the `format` files as the
// block records' is. The submission and the completion, which run once
// per request, are taken on the raw tracepoints instead where they load
// (tp_btf: the arguments typed by the kernel's BTF, no record built),
// those records being the fallback. The file a request worked on is read at its
// completion from the request (`struct io_kiocb` starts with its `struct
// file *`, as the kernel's own comment on the union says) and named by
// its inode: `file->f_inode->i_ino` and `->i_sb->s_dev`, read with CO-RE
// relocations (clang's preserve_access_index; the loader relocates them
// against the kernel's BTF, and attaches none of this without it). The
// same reads name the file behind each descriptor a watched process
// opens (`task->files->fdt->fd[fd]`), so user space can name the
// requests' files. Linux AIO control blocks are read from the watched
// process's memory at io_submit's exit (the iocb array) and at
// io_getevents' exit (the io_event array), and timed from the one to the
// other per (process, descriptor, opcode) in the syscalls' table.
//
// Built by scripts/build-bpf (clang 14, then the DWARF stripped and the
// BTF kept); `scripts/build-bpf --check` compares the bytes with the
// committed watch.bpf.o.

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef short __s16;
typedef unsigned int __u32;
typedef int __s32;
typedef unsigned long long __u64;
typedef long long __s64;

#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name

#define BPF_MAP_TYPE_HASH 1
#define BPF_MAP_TYPE_PERCPU_HASH 5
#define BPF_MAP_TYPE_PERCPU_ARRAY 6
#define BPF_MAP_TYPE_LRU_HASH 9
#define BPF_MAP_TYPE_RINGBUF 27
#define BPF_ANY 0
#define BPF_NOEXIST 1

static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *)1;
static long (*bpf_map_update_elem)(void *map, const void *key, const void *value, __u64 flags) = (void *)2;
static long (*bpf_map_delete_elem)(void *map, const void *key) = (void *)3;
static __u64 (*bpf_ktime_get_ns)(void) = (void *)5;
static __u64 (*bpf_get_current_pid_tgid)(void) = (void *)14;
static long (*bpf_get_current_comm)(void *buf, __u32 size) = (void *)16;
static __u64 (*bpf_get_current_ancestor_cgroup_id)(int level) = (void *)123;
static long (*bpf_probe_read_kernel)(void *dst, __u32 size, const void *src) = (void *)113;
static void *(*bpf_ringbuf_reserve)(void *ringbuf, __u64 size, __u64 flags) = (void *)131;
static void (*bpf_ringbuf_submit)(void *data, __u64 flags) = (void *)132;
static long (*bpf_probe_read_user)(void *dst, __u32 size, const void *src) = (void *)112;
static long (*bpf_probe_read_user_str)(void *dst, __u32 size, const void *src) = (void *)114;
static __u64 (*bpf_get_current_task)(void) = (void *)35;

#define CORE __attribute__((preserve_access_index))
// The address of a kernel struct's field, relocated against the
// running kernel's BTF at load (CO-RE).
#define FIELD(p, f) __builtin_preserve_access_index(&(p)->f)

// Must match crates/watch/src/lib.rs.
#define NBUCKETS 32
#define STAT_UNMATCHED 0
#define STAT_START_FULL 1
#define STAT_RB_DROPS 2
#define STAT_HIST_FULL 3
#define STAT_BLK_UNMATCHED 4
#define STAT_BLK_TABLE_FULL 5
#define STAT_BLK_RB_DROPS 6
#define STAT_BLK_HIST_FULL 7
#define STAT_OPEN_DROPS 8
#define STAT_OPEN_FULL 9
#define STAT_ASYNC_UNMATCHED 10
#define STAT_ASYNC_FULL 11
#define STAT_AIO_UNREAD 12
#define NSTATS 13

// Block request classes, in the order of dbio_model::watch::BlockOp.
enum blk_class { BLK_READ, BLK_WRITE, BLK_FLUSH, BLK_DISCARD, BLK_OTHER };
#define BLK_FUA 1
#define BLK_PREFLUSH 2
#define BLK_QUEUED 4

// Operations, in the order of dbio_watch::Op.
enum op {
	OP_READ, OP_PREAD64, OP_READV, OP_PREADV, OP_PREADV2,
	OP_WRITE, OP_PWRITE64, OP_WRITEV, OP_PWRITEV, OP_PWRITEV2,
	OP_FSYNC, OP_FDATASYNC, OP_SYNC_FILE_RANGE,
	OP_IO_SUBMIT, OP_IO_GETEVENTS, OP_IO_URING_ENTER,
	OP_URING_READ, OP_URING_WRITE, OP_URING_READV, OP_URING_WRITEV,
	OP_URING_READ_FIXED, OP_URING_WRITE_FIXED, OP_URING_FSYNC,
	OP_URING_FSYNC_LINKED, OP_URING_SYNC_FILE_RANGE,
	OP_AIO_PREAD, OP_AIO_PWRITE, OP_AIO_PREADV, OP_AIO_PWRITEV,
	OP_AIO_FSYNC, OP_AIO_FDSYNC,
	OP_NONE = 255,
};

// A thread's call in flight (ts != 0) or its last call, done (ts == 0).
struct start {
	__u64 ts;
	__s64 off;
	__u64 size;
	__s32 fd;
	__u32 op;
	// io_submit: the iocb pointer array; io_getevents: the event array.
	__u64 arg;
	// The thread's process when the entry was made (it was watched).
	__u32 tgid;
	__u32 pad;
};

struct key {
	__u32 tgid;
	__s32 fd;
	__u32 op;
	__u32 gen;
};

struct val {
	__u64 count;
	__u64 bytes;
	__u64 errors;
	__u64 lat_ns;
	__u64 same_offset;
	__u64 same_block;
	__u64 unaligned_512;
	__u64 unaligned_4k;
	__u64 buckets[NBUCKETS];
};

struct fdkey {
	__u32 tgid;
	__s32 fd;
};

// A watched descriptor: how many times it was closed or replaced (a
// number reused for another file starts a new row, its `gen`), and its
// last write's offset and end (end = 0: none since it was opened; a write
// counted there moved at least one byte, so its end is above 0).
struct fdstate {
	__u32 gen;
	__u32 pad;
	__s64 off;
	__s64 end;
};

struct event {
	__u64 ts;
	__u64 lat_ns;
	__s64 off;
	__u64 size;
	__s64 ret;
	__u32 tgid;
	__u32 tid;
	__s32 fd;
	__u32 op;
	__u32 gen;
	__u32 pad;
	char comm[16];
};

struct bkey {
	__u32 dev;
	__u32 pad;
	__u64 sector;
};

struct binfl {
	__u64 ts;
	// From the bio's queueing (block_bio_queue) to the issue, when the
	// request's first bio was seen queued (flags & BLK_QUEUED).
	__u64 queue_ns;
	__u32 tgid;
	__u32 bytes;
	__u32 class;
	__u32 flags;
};

struct bhkey {
	__u32 dev;
	__u32 tgid;
	__u32 class;
	__u32 pad;
};

struct bhval {
	__u64 count;
	__u64 bytes;
	__u64 lat_ns;
	__u64 fua;
	__u64 preflush;
	__u64 buckets[NBUCKETS];
	// Requests with a known queue time, that time summed, its histogram.
	__u64 queued;
	__u64 queue_ns;
	__u64 qbuckets[NBUCKETS];
};

struct bevent {
	__u64 sector;
	__u64 lat_ns;
	__u64 queue_ns;
	__u32 dev;
	__u32 bytes;
	__u32 tgid;
	__u32 class;
	__u32 flags;
	__u32 pad;
};

// Key: a watched tgid. Value: 0 = every thread, else the one tid watched.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} watched SEC(".maps");

// By tid. Written in place: an entry is created once per watched thread
// and then reused (ts = 0 when no call is in flight), so the hot path does
// lookups only, no update/delete (a hash update allocates an element and
// frees the old one: about half the exit program's time before). LRU: the
// entries of threads that have exited are evicted when the table fills;
// evicting a call in flight (16,384 more recent threads meanwhile) makes
// its exit count as unmatched.
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct key);
	__type(value, struct val);
} hist SEC(".maps");

// Each watched descriptor's generation and last write: one lookup per
// call serves both (a table of last writes of its own was one more hash
// lookup per write).
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct fdkey);
	__type(value, struct fdstate);
} fdgen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

// Requests issued and not yet complete, by (device, sector).
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct bkey);
	__type(value, struct binfl);
} binflight SEC(".maps");

// Requests started (block_io_start) in a watched process's context and
// not yet issued: the issuer seen at block_rq_issue may be a kworker.
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct bkey);
	__type(value, __u32);
} bwho SEC(".maps");

// A zeroed device row, to create one from (too large for the stack).
const struct bhval bhval_zero = {};

// Bios queued (block_bio_queue) whose request is not issued yet, by
// (device, first sector): the time each was queued. A bio merged behind
// another (a back merge) leaves its entry, which no issue takes; LRU, so
// those are evicted in time.
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 32768);
	__type(key, struct bkey);
	__type(value, __u64);
} bqueued SEC(".maps");

// Per device: bios merged into a request, requests merged into another,
// bios split.
struct bqstat {
	__u64 bio_merges;
	__u64 rq_merges;
	__u64 splits;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct bqstat);
} bqstats SEC(".maps");

// Per (device, watched tgid or 0, class): the device service time.
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct bhkey);
	__type(value, struct bhval);
} bhist SEC(".maps");

// Devices whose completed requests, whoever issued them, go to user space
// (through bevents), to be attributed to files by their extents.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} bdevs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} bevents SEC(".maps");

struct comm {
	char comm[16];
};

// --device: the command name of each issuer, by tgid.
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct comm);
} issuers SEC(".maps");

// Paths captured at open time (openat, openat2, open, creat), and the
// descriptors duplicated (dup, dup2, dup3, fcntl F_DUPFD), so that a file
// opened and closed between two of user space's reads of /proc is named;
// and the status flags set by fcntl(F_SETFL) (O_DIRECT switched on after
// the open, as dbio itself does), so that a descriptor's flags are the
// ones its calls ran with.
#define PATH_BYTES 256
#define KIND_OPEN 0
#define KIND_DUP 1
#define KIND_SETFL 2

struct opening {
	__s32 dfd;
	__u32 kind;
	__u32 flags;
	__u32 len;
	char path[PATH_BYTES];
};

struct open_event {
	__u32 tgid;
	__u32 kind;
	__s32 fd;
	__u32 gen;
	__s32 dfd;
	__u32 src_gen;
	__u32 flags;
	__u32 len;
	// The file the new descriptor holds: its filesystem's device
	// (kernel dev_t) and inode number (0 when not read).
	__u32 dev;
	__u32 pad;
	__u64 ino;
	char path[PATH_BYTES];
};

// The open or dup in progress, by thread.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct opening);
} openings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} opens SEC(".maps");

// Set by the loader before load (0 = off).
const volatile __u32 stream_enabled = 0;
const volatile __u64 stream_min_ns = 0;
// --cgroup: the watched cgroup v2's id (its directory's inode number) and
// its depth below the cgroup2 root; 0 = watch the `watched` table's
// processes instead. Its processes and those of the cgroups below it are
// watched (bpf_get_current_ancestor_cgroup_id, Linux 5.6 for tracing
// programs; the branch is dead code, never verified, when cgroup_id is 0).
const volatile __u64 cgroup_id = 0;
const volatile __u32 cgroup_level = 0;

// Which completed block requests go to user space through bevents.
#define BEVENTS_OFF 0
#define BEVENTS_WATCHED 1
#define BEVENTS_ALL 2
// BEVENTS_ALL: every device's, so that a request on a device where no
// watched file is known yet (a kworker's, in the first tick of a watch)
// can be attributed once its file is mapped; user space drops those on
// devices that never hold a watched file.
const volatile __u32 bevents_mode = BEVENTS_WATCHED;
// --device: the kernel dev_t of the one device watched (0: none).
const volatile __u32 device_target = 0;

// Field offsets in the block records, from tracefs `format` files.
const volatile __u32 issue_dev_off = 8;
const volatile __u32 issue_sector_off = 16;
const volatile __u32 issue_nr_off = 24;
const volatile __u32 issue_rwbs_off = 34;
const volatile __u32 done_dev_off = 8;
const volatile __u32 done_sector_off = 16;
const volatile __u32 done_nr_off = 24;
const volatile __u32 start_dev_off = 8;
const volatile __u32 start_sector_off = 16;
const volatile __u32 queue_dev_off = 8;
const volatile __u32 queue_sector_off = 16;
const volatile __u32 split_dev_off = 8;
const volatile __u32 split_sector_off = 16;
const volatile __u32 split_new_off = 24;
const volatile __u32 bmerge_dev_off = 8;
const volatile __u32 bmerge_sector_off = 16;
const volatile __u32 rmerge_dev_off = 8;
// child_pid in sched:sched_process_fork (20 on 6.x, where the comms are
// __data_loc strings; 44 before).
const volatile __u32 fork_child_off = 20;

struct sys_enter {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 args[6];
};

struct sys_exit {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

static __attribute__((always_inline)) void bump(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&stats, &idx);
	if (c)
		*c += 1;
}

// Bucket of a latency of `us` whole microseconds: 0 below 1 µs, else
// floor(log2(us)) + 1 (dbio_model::Log2Buckets), by binary search.
static __attribute__((always_inline)) __u32 bucket(__u64 us)
{
	__u32 r = 0;
	if (us == 0)
		return 0;
	if (us >> 32) { us >>= 32; r += 32; }
	if (us >> 16) { us >>= 16; r += 16; }
	if (us >> 8) { us >>= 8; r += 8; }
	if (us >> 4) { us >>= 4; r += 4; }
	if (us >> 2) { us >>= 2; r += 2; }
	if (us >> 1) { r += 1; }
	r += 1;
	return r < NBUCKETS ? r : NBUCKETS - 1;
}

// Whether the current thread is watched: in the watched cgroup (or one
// below it), or its process is in `watched` (all its threads, or one).
static __attribute__((always_inline)) int is_watched(__u32 tgid, __u32 tid)
{
	if (cgroup_id)
		return bpf_get_current_ancestor_cgroup_id(cgroup_level) == cgroup_id;
	__u32 *only = bpf_map_lookup_elem(&watched, &tgid);
	return only && (!*only || *only == tid);
}

// Whether any thread of process `tgid` is watched (or, with a cgroup,
// the current task is in it).
static __attribute__((always_inline)) int process_watched(__u32 tgid)
{
	if (cgroup_id)
		return bpf_get_current_ancestor_cgroup_id(cgroup_level) == cgroup_id;
	return bpf_map_lookup_elem(&watched, &tgid) != 0;
}

static __attribute__((always_inline)) int enter_arg(__s32 fd, __s64 off, __u64 size, __u32 op, __u64 arg)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	// A thread's entry is made once it is seen watched, and no process
	// leaves `watched` while it lives (user space removes only the ids
	// that are not processes), so an entry made for this same process
	// stands for the `watched` lookup: one hash lookup less per call of a
	// watched thread, one more (a miss) per call of a thread that is not.
	// A thread id reused by another process does not match its tgid. With
	// --cgroup the cgroup is compared every time (a process can be moved
	// out of it).
	struct start *p = bpf_map_lookup_elem(&starts, &tid);
	if (!(p && p->tgid == tgid && !cgroup_id) && !is_watched(tgid, tid))
		return 0;
	__u64 now = bpf_ktime_get_ns();
	if (p) {
		// Only this thread reads or writes its entry.
		p->ts = now;
		p->off = off;
		p->size = size;
		p->fd = fd;
		p->op = op;
		p->arg = arg;
		p->tgid = tgid;
		return 0;
	}
	struct start s = { .ts = now, .off = off, .size = size, .fd = fd, .op = op, .arg = arg, .tgid = tgid };
	if (bpf_map_update_elem(&starts, &tid, &s, BPF_NOEXIST))
		bump(STAT_START_FULL);
	return 0;
}

static __attribute__((always_inline)) int enter(__s32 fd, __s64 off, __u64 size, __u32 op)
{
	return enter_arg(fd, off, size, op, 0);
}

static __attribute__((always_inline)) int is_write(__u32 op)
{
	return (op >= OP_WRITE && op <= OP_PWRITEV2) || op == OP_AIO_PWRITE || op == OP_AIO_PWRITEV;
}

static __attribute__((always_inline)) int moves_data(__u32 op)
{
	return op < OP_FSYNC || (op >= OP_AIO_PREAD && op <= OP_AIO_PWRITEV);
}

// Descriptor `fd`'s entry (none for a negative number, or a full table:
// generation 0, no last write). Every descriptor with a row has one, so
// that close_range and exec (which walk the entries) start its next row;
// created once per descriptor.
static __attribute__((always_inline)) struct fdstate *fd_state(__u32 tgid, __s32 fd)
{
	if (fd < 0)
		return 0;
	struct fdkey gk = { .tgid = tgid, .fd = fd };
	struct fdstate *g = bpf_map_lookup_elem(&fdgen, &gk);
	if (g)
		return g;
	struct fdstate zero = {};
	bpf_map_update_elem(&fdgen, &gk, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&fdgen, &gk);
}

// The generation of descriptor `fd`'s row (0 for none).
static __attribute__((always_inline)) __u32 row_gen(__u32 tgid, __s32 fd)
{
	struct fdstate *g = fd_state(tgid, fd);
	return g ? g->gen : 0;
}

// Adds one call (or one AIO control block) that returned `ret` after
// `lat` ns to the histogram row `k`; `off` is its offset (-1: none), `fs`
// its descriptor's entry (or none). Lookups only in the steady state: the
// last write of a descriptor is overwritten in place.
static __attribute__((always_inline)) void account(struct key *k, __s64 off, __s64 ret, __u64 lat,
						   struct fdstate *fs)
{
	struct val *v = bpf_map_lookup_elem(&hist, k);
	if (!v) {
		struct val zero = {};
		bpf_map_update_elem(&hist, k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&hist, k);
	}
	if (!v) {
		bump(STAT_HIST_FULL);
		return;
	}
	v->count += 1;
	v->lat_ns += lat;
	if (ret < 0)
		v->errors += 1;
	else if (moves_data(k->op))
		v->bytes += ret;
	v->buckets[bucket(lat / 1000)] += 1;
	if (is_write(k->op) && off >= 0 && ret > 0) {
		if (off & 511)
			v->unaligned_512 += 1;
		if ((off & 4095) || (ret & 4095))
			v->unaligned_4k += 1;
		if (fs) {
			if (fs->end) {
				if (fs->off == off)
					v->same_offset += 1;
				// The first 4 KiB block of this write is the last
				// block the previous write to this fd touched.
				if ((off >> 12) == ((fs->end - 1) >> 12))
					v->same_block += 1;
			}
			// In place: two threads writing one descriptor at once
			// may interleave these two stores (a same-block count
			// off by one), which an update would not prevent either.
			fs->off = off;
			fs->end = off + ret;
		}
	}
}

// The exit of call `op`: pairs it with the thread's entry, adds it to the
// histogram of (process, descriptor, generation, op). Lookups only in the
// steady state: the entry is marked done in place.
static __attribute__((always_inline)) int leave(__s64 ret, __u32 op)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct start *p = bpf_map_lookup_elem(&starts, &tid);
	if (!p || !p->ts || p->op != op) {
		// No entry: a call in progress at attach, an entry evicted, or
		// (another op) an entry whose exit was missed, dropped here.
		if (p)
			p->ts = 0;
		if (is_watched(tgid, tid))
			bump(STAT_UNMATCHED);
		return 0;
	}
	struct start c = *p;
	struct start *s = &c;
	p->ts = 0;
	__u64 lat = bpf_ktime_get_ns() - s->ts;
	struct fdstate *fs = fd_state(tgid, s->fd);
	struct key k = { .tgid = tgid, .fd = s->fd, .op = s->op, .gen = fs ? fs->gen : 0 };
	account(&k, s->off, ret, lat, fs);
	if (stream_enabled && lat >= stream_min_ns) {
		struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (e) {
			e->ts = s->ts;
			e->lat_ns = lat;
			e->off = s->off;
			e->size = s->size;
			e->ret = ret;
			e->tgid = tgid;
			e->tid = tid;
			e->fd = s->fd;
			e->op = s->op;
			e->gen = k.gen;
			e->pad = 0;
			bpf_get_current_comm(e->comm, sizeof(e->comm));
			bpf_ringbuf_submit(e, 0);
		} else {
			bump(STAT_RB_DROPS);
		}
	}
	return 0;
}

#define EXIT(name, opc)                                             \
	SEC("tracepoint/syscalls/sys_exit_" #name)                      \
	int exit_##name(struct sys_exit *ctx) { return leave(ctx->ret, opc); }

// args: fd, buf, count
#define RW(name, opc)                                               \
	SEC("tracepoint/syscalls/sys_enter_" #name)                     \
	int enter_##name(struct sys_enter *ctx)                         \
	{ return enter((__s32)ctx->args[0], -1, ctx->args[2], opc); }   \
	EXIT(name, opc)

// args: fd, buf/vec, count/vlen, pos
#define PRW(name, opc)                                              \
	SEC("tracepoint/syscalls/sys_enter_" #name)                     \
	int enter_##name(struct sys_enter *ctx)                         \
	{ return enter((__s32)ctx->args[0], (__s64)ctx->args[3], ctx->args[2], opc); } \
	EXIT(name, opc)

// args: fd
#define SYNC(name, opc)                                             \
	SEC("tracepoint/syscalls/sys_enter_" #name)                     \
	int enter_##name(struct sys_enter *ctx)                         \
	{ return enter((__s32)ctx->args[0], -1, 0, opc); }              \
	EXIT(name, opc)

RW(read, OP_READ)
PRW(pread64, OP_PREAD64)
RW(readv, OP_READV)
PRW(preadv, OP_PREADV)
PRW(preadv2, OP_PREADV2)
RW(write, OP_WRITE)
PRW(pwrite64, OP_PWRITE64)
RW(writev, OP_WRITEV)
PRW(pwritev, OP_PWRITEV)
PRW(pwritev2, OP_PWRITEV2)
SYNC(fsync, OP_FSYNC)
SYNC(fdatasync, OP_FDATASYNC)

// sync_file_range(fd, offset, nbytes, flags)
SEC("tracepoint/syscalls/sys_enter_sync_file_range")
int enter_sync_file_range(struct sys_enter *ctx)
{ return enter((__s32)ctx->args[0], (__s64)ctx->args[1], ctx->args[2], OP_SYNC_FILE_RANGE); }
EXIT(sync_file_range, OP_SYNC_FILE_RANGE)

// ---- Linux AIO: each control block from io_submit to io_getevents ----

// The head of a struct iocb (linux/aio_abi.h, little-endian layout).
struct iocb_head {
	__u64 aio_data;
	__u32 aio_key;
	__u32 aio_rw_flags;
	__u16 aio_lio_opcode;
	__s16 aio_reqprio;
	__u32 aio_fildes;
	__u64 aio_buf;
	__u64 aio_nbytes;
	__s64 aio_offset;
};

// struct io_event.
struct io_event_rec {
	__u64 data;
	__u64 obj;
	__s64 res;
	__s64 res2;
};

struct akey {
	__u32 tgid;
	__u32 pad;
	__u64 iocb;
};

struct ainfl {
	__u64 ts;
	__s64 off;
	__s32 fd;
	__u32 op;
	__u32 gen;
	__u32 pad;
};

// Control blocks submitted and not yet reaped, by (process, iocb
// address). LRU: a block whose event is never reaped (the process
// exits, or reaps it from the ring in user space) is evicted in time.
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct akey);
	__type(value, struct ainfl);
} ainflight SEC(".maps");

// The most control blocks read per io_submit and events per io_getevents
// (a bounded loop the verifier walks); more are counted as unread.
#define AIO_MAX 256

#define IOCB_CMD_PREAD 0
#define IOCB_CMD_PWRITE 1
#define IOCB_CMD_FSYNC 2
#define IOCB_CMD_FDSYNC 3
#define IOCB_CMD_PREADV 7
#define IOCB_CMD_PWRITEV 8

static __attribute__((always_inline)) __u32 aio_op(__u16 opcode)
{
	switch (opcode) {
	case IOCB_CMD_PREAD: return OP_AIO_PREAD;
	case IOCB_CMD_PWRITE: return OP_AIO_PWRITE;
	case IOCB_CMD_PREADV: return OP_AIO_PREADV;
	case IOCB_CMD_PWRITEV: return OP_AIO_PWRITEV;
	case IOCB_CMD_FSYNC: return OP_AIO_FSYNC;
	case IOCB_CMD_FDSYNC: return OP_AIO_FDSYNC;
	default: return OP_NONE;
	}
}

// The thread's io_submit or io_getevents entry, before leave() marks it
// done: a copy, or none.
static __attribute__((always_inline)) int entry_of(__u32 op, struct start *out)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct start *p = bpf_map_lookup_elem(&starts, &tid);
	if (!p || !p->ts || p->op != op)
		return 0;
	*out = *p;
	return 1;
}

// Counts the control blocks or events beyond AIO_MAX of one call.
static __attribute__((always_inline)) void aio_overflow(__s64 n)
{
	if (n <= AIO_MAX)
		return;
	__u32 idx = STAT_AIO_UNREAD;
	__u64 *u = bpf_map_lookup_elem(&stats, &idx);
	if (u)
		*u += n - AIO_MAX;
}

// The loops' bodies are global functions: the verifier checks each once,
// on its own, instead of once per iteration of every path through the
// loop (which exceeds its limit).

// The control block whose address is at `slot` (an element of
// io_submit's array), submitted at `ts` by process `tgid`.
__attribute__((noinline)) int aio_submitted(__u32 tgid, __u64 slot, __u64 ts)
{
	__u64 cbp = 0;
	struct iocb_head cb = {};
	if (bpf_probe_read_user(&cbp, 8, (const void *)slot) ||
	    bpf_probe_read_user(&cb, sizeof(cb), (const void *)cbp))
		return 0;
	__u32 op = aio_op(cb.aio_lio_opcode);
	if (op == OP_NONE)
		return 0;
	struct akey k = { .tgid = tgid, .iocb = cbp };
	struct ainfl v = {
		.ts = ts,
		.off = op == OP_AIO_FSYNC || op == OP_AIO_FDSYNC ? -1 : cb.aio_offset,
		.fd = (__s32)cb.aio_fildes,
		.op = op,
		.gen = row_gen(tgid, (__s32)cb.aio_fildes),
	};
	if (bpf_map_update_elem(&ainflight, &k, &v, BPF_ANY))
		bump(STAT_ASYNC_FULL);
	return 0;
}

// The event at `at` (an element of io_getevents' array), reaped at `now`
// by process `tgid`: its control block's time since its io_submit.
__attribute__((noinline)) int aio_reaped(__u32 tgid, __u64 at, __u64 now)
{
	struct io_event_rec ev = {};
	if (bpf_probe_read_user(&ev, sizeof(ev), (const void *)at))
		return 0;
	struct akey k = { .tgid = tgid, .iocb = ev.obj };
	struct ainfl *a = bpf_map_lookup_elem(&ainflight, &k);
	if (!a) {
		bump(STAT_ASYNC_UNMATCHED);
		return 0;
	}
	struct ainfl v = *a;
	bpf_map_delete_elem(&ainflight, &k);
	struct key hk = { .tgid = tgid, .fd = v.fd, .op = v.op, .gen = v.gen };
	account(&hk, v.off, ev.res, now > v.ts ? now - v.ts : 0, fd_state(tgid, v.fd));
	return 0;
}

// io_submit(ctx, nr, iocbpp): size = iocbs asked for.
SEC("tracepoint/syscalls/sys_enter_io_submit")
int enter_io_submit(struct sys_enter *ctx)
{ return enter_arg(-1, -1, ctx->args[1], OP_IO_SUBMIT, ctx->args[2]); }

// The `n` control blocks io_submit took (its return value: the first n
// of the array) start their clocks at the call's entry.
SEC("tracepoint/syscalls/sys_exit_io_submit")
int exit_io_submit(struct sys_exit *ctx)
{
	struct start c;
	int ok = entry_of(OP_IO_SUBMIT, &c);
	leave(ctx->ret, OP_IO_SUBMIT);
	if (!ok || ctx->ret <= 0)
		return 0;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__s64 n = ctx->ret;
	aio_overflow(n);
	for (__u32 i = 0; i < AIO_MAX && i < n; i++)
		aio_submitted(tgid, c.arg + i * 8, c.ts);
	return 0;
}

// io_getevents(ctx, min_nr, nr, events, timeout)
SEC("tracepoint/syscalls/sys_enter_io_getevents")
int enter_io_getevents(struct sys_enter *ctx)
{ return enter_arg(-1, -1, ctx->args[2], OP_IO_GETEVENTS, ctx->args[3]); }

// The `n` events io_getevents returned: each control block's time from
// its io_submit to now, in the row of its descriptor and opcode.
SEC("tracepoint/syscalls/sys_exit_io_getevents")
int exit_io_getevents(struct sys_exit *ctx)
{
	struct start c;
	int ok = entry_of(OP_IO_GETEVENTS, &c);
	leave(ctx->ret, OP_IO_GETEVENTS);
	if (!ok || ctx->ret <= 0)
		return 0;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 now = bpf_ktime_get_ns();
	__s64 n = ctx->ret;
	aio_overflow(n);
	for (__u32 i = 0; i < AIO_MAX && i < n; i++)
		aio_reaped(tgid, c.arg + i * sizeof(struct io_event_rec), now);
	return 0;
}

// io_uring_enter(fd, to_submit, min_complete, flags, ...)
SEC("tracepoint/syscalls/sys_enter_io_uring_enter")
int enter_io_uring_enter(struct sys_enter *ctx)
{ return enter((__s32)ctx->args[0], -1, ctx->args[1], OP_IO_URING_ENTER); }
EXIT(io_uring_enter, OP_IO_URING_ENTER)

// ---- The files behind requests and descriptors (CO-RE) ----

// Only the fields read, each relocated against the kernel's BTF at load.
struct super_block {
	__u32 s_dev;
} CORE;

struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
} CORE;

struct file {
	struct inode *f_inode;
} CORE;

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
} CORE;

struct files_struct {
	struct fdtable *fdt;
} CORE;

struct task_struct {
	struct files_struct *files;
} CORE;

// Set by the loader when the kernel has BTF (/sys/kernel/btf/vmlinux) to
// relocate the reads above against; without it they are never made.
const volatile __u32 core_ok = 0;

struct file_id {
	__u32 dev;
	__u32 pad;
	__u64 ino;
};

// The device of inode `in`'s filesystem; 0 when a read fails.
static __attribute__((always_inline)) __u32 inode_dev(struct inode *in)
{
	struct super_block *sb = 0;
	__u32 dev = 0;
	if (!bpf_probe_read_kernel(&sb, sizeof(sb), FIELD(in, i_sb)) && sb)
		bpf_probe_read_kernel(&dev, sizeof(dev), FIELD(sb, s_dev));
	return dev;
}

// File `f`'s inode and inode number; the inode is none when a read fails.
static __attribute__((always_inline)) struct inode *file_inode_of(struct file *f, __u64 *ino)
{
	struct inode *in = 0;
	unsigned long i = 0;
	if (!f || bpf_probe_read_kernel(&in, sizeof(in), FIELD(f, f_inode)) || !in)
		return 0;
	bpf_probe_read_kernel(&i, sizeof(i), FIELD(in, i_ino));
	*ino = i;
	return in;
}

// The file's filesystem device and inode number; zeros when a read fails.
static __attribute__((always_inline)) void file_id_of(struct file *f, struct file_id *id)
{
	__u64 ino = 0;
	struct inode *in = file_inode_of(f, &ino);
	if (!in)
		return;
	id->dev = inode_dev(in);
	id->ino = ino;
}

// The file the current process holds as descriptor `fd`.
static __attribute__((always_inline)) void fd_file_id(__s32 fd, struct file_id *id)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct files_struct *files = 0;
	struct fdtable *fdt = 0;
	struct file **fds = 0;
	struct file *f = 0;
	unsigned int max = 0;
	if (fd < 0 || bpf_probe_read_kernel(&files, sizeof(files), FIELD(t, files)) || !files)
		return;
	if (bpf_probe_read_kernel(&fdt, sizeof(fdt), FIELD(files, fdt)) || !fdt)
		return;
	if (bpf_probe_read_kernel(&max, sizeof(max), FIELD(fdt, max_fds)) || (__u32)fd >= max)
		return;
	if (bpf_probe_read_kernel(&fds, sizeof(fds), FIELD(fdt, fd)) || !fds)
		return;
	if (bpf_probe_read_kernel(&f, sizeof(f), fds + fd))
		return;
	file_id_of(f, id);
}

// ---- io_uring: each request from submission to completion ----

// Field offsets in the io_uring records, from tracefs `format` files.
// The submission record is read at once from its request pointer to its
// sq_thread flag, and the completion record from its request pointer to
// its result: one helper call each instead of three and two (the loader
// checks the fields lie in this order, within the spans).
#define USUB_SPAN 64
#define UDONE_SPAN 32
const volatile __u32 usub_req_off = 16;
const volatile __u32 usub_len = 33;
const volatile __u32 usub_opcode_rel = 16;
const volatile __u32 usub_sqt_rel = 32;
const volatile __u32 udone_req_off = 16;
const volatile __u32 udone_len = 20;
const volatile __u32 udone_res_rel = 16;
const volatile __u32 uasync_req_off = 16;
const volatile __u32 ulink_req_off = 16;
const volatile __u32 ulink_target_off = 24;

#define IORING_OP_READV 1
#define IORING_OP_WRITEV 2
#define IORING_OP_FSYNC 3
#define IORING_OP_READ_FIXED 4
#define IORING_OP_WRITE_FIXED 5
#define IORING_OP_SYNC_FILE_RANGE 8
#define IORING_OP_READ 22
#define IORING_OP_WRITE 23

#define UR_SQ_THREAD 1
#define UR_ASYNC 2
#define UR_LINKED 4

// A request in flight.
struct uinfl {
	__u64 ts;
	// The request linked after this one (io_uring_link), whose clock
	// starts when this one completes.
	__u64 next;
	__u32 tgid;
	__u32 op;
	__u32 flags;
	// The thread that submitted it.
	__u32 tid;
};

// By request pointer. The kernel recycles its request structures, so an
// entry is created once per structure and then written in place (ts = 0
// once completed), as the threads' entries are: lookups only in the steady
// state. LRU: the entries of structures freed since, and of a request
// that completed without a CQE (IOSQE_CQE_SKIP_SUCCESS, never seen
// completing), are evicted in time.
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct uinfl);
} uinflight SEC(".maps");

// The file is its inode's address and number: the address stands for the
// filesystem's device, which is read only when a CPU's share of a row is
// first used (two reads fewer per request). The same file under two
// addresses (its inode evicted and read again) is two rows, which user
// space adds up; another file under the same address and number would
// need an inode freed and another with its number made at that address on
// another filesystem during the watch.
struct ukey {
	__u32 tgid;
	__u32 op;
	__u64 ino;
	__u64 inode;
};

struct uval {
	// The file's filesystem device (0 until read on this CPU).
	__u32 dev;
	__u32 pad;
	__u64 count;
	__u64 bytes;
	__u64 errors;
	__u64 lat_ns;
	__u64 sq_thread;
	__u64 async_work;
	__u64 buckets[NBUCKETS];
};

// Per (process, opcode, file): the requests' times.
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct ukey);
	__type(value, struct uval);
} uhist SEC(".maps");

static __attribute__((always_inline)) __u32 uring_op(__u8 opcode)
{
	switch (opcode) {
	case IORING_OP_READ: return OP_URING_READ;
	case IORING_OP_WRITE: return OP_URING_WRITE;
	case IORING_OP_READV: return OP_URING_READV;
	case IORING_OP_WRITEV: return OP_URING_WRITEV;
	case IORING_OP_READ_FIXED: return OP_URING_READ_FIXED;
	case IORING_OP_WRITE_FIXED: return OP_URING_WRITE_FIXED;
	case IORING_OP_FSYNC: return OP_URING_FSYNC;
	case IORING_OP_SYNC_FILE_RANGE: return OP_URING_SYNC_FILE_RANGE;
	default: return OP_NONE;
	}
}

static __attribute__((always_inline)) __u64 req_at(void *ctx, __u32 off)
{
	__u64 req = 0;
	bpf_probe_read_kernel(&req, 8, (char *)ctx + off);
	return req;
}

// Request `req` of opcode `opcode` submitted, in the submitting task's
// context: a thread of the process that owns the ring, or (`sqt`) its
// SQPOLL thread (iou-sqp-PID, a thread of the same process since Linux
// 5.12), which --tid does not exclude.
static __attribute__((always_inline)) int uring_submitted(__u64 req, __u8 opcode, __u8 sqt)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	__u32 op = uring_op(opcode);
	if (op == OP_NONE)
		return 0;
	// The kernel recycles a ring's request structures for the same ring,
	// so the entry of a structure this same thread submitted last stands
	// for the lookup in the watched map, as a thread's own entry does for
	// system calls (no process leaves `watched` while it lives; with
	// --cgroup the cgroup is compared every time).
	struct uinfl *p = bpf_map_lookup_elem(&uinflight, &req);
	if (!(p && p->tgid == tgid && p->tid == tid && !cgroup_id) &&
	    (sqt ? !process_watched(tgid) : !is_watched(tgid, tid)))
		return 0;
	__u64 now = bpf_ktime_get_ns();
	__u32 flags = sqt ? UR_SQ_THREAD : 0;
	if (p) {
		p->ts = now;
		p->next = 0;
		p->tgid = tgid;
		p->tid = tid;
		p->op = op;
		p->flags = flags;
		return 0;
	}
	struct uinfl v = { .ts = now, .tgid = tgid, .op = op, .flags = flags, .tid = tid };
	if (bpf_map_update_elem(&uinflight, &req, &v, BPF_NOEXIST))
		bump(STAT_ASYNC_FULL);
	return 0;
}

// On the tracepoint: the request pointer, opcode and sq_thread flag from
// its record, read in one helper call.
SEC("tracepoint/io_uring/io_uring_submit_req")
int uring_submit_tp(void *ctx)
{
	__u8 rec[USUB_SPAN] = {};
	if (usub_len > USUB_SPAN ||
	    bpf_probe_read_kernel(rec, usub_len, (char *)ctx + usub_req_off))
		return 0;
	return uring_submitted(*(__u64 *)rec, rec[usub_opcode_rel & (USUB_SPAN - 1)],
			       rec[usub_sqt_rel & (USUB_SPAN - 1)]);
}

// A request punted to the ring's io-wq workers (iou-wrk-PID).
SEC("tracepoint/io_uring/io_uring_queue_async_work")
int uring_async(void *ctx)
{
	__u64 req = req_at(ctx, uasync_req_off);
	struct uinfl *v = bpf_map_lookup_elem(&uinflight, &req);
	if (v && v->ts)
		v->flags |= UR_ASYNC;
	return 0;
}

// `req` linked after `target_req` (IOSQE_IO_LINK on the target): it runs
// only once the target completed, and is timed from then.
SEC("tracepoint/io_uring/io_uring_link")
int uring_link(void *ctx)
{
	__u64 req = req_at(ctx, ulink_req_off), target = req_at(ctx, ulink_target_off);
	struct uinfl *r = bpf_map_lookup_elem(&uinflight, &req);
	if (!r || !r->ts)
		return 0;
	r->flags |= UR_LINKED;
	struct uinfl *t = bpf_map_lookup_elem(&uinflight, &target);
	if (t && t->ts)
		t->next = req;
	return 0;
}

// Request `req`'s completion with result `res`, in whichever task posted
// it: added to its submitter's row for the file it worked on.
static __attribute__((always_inline)) int uring_completed(__u64 req, __s32 res)
{
	struct uinfl *p = bpf_map_lookup_elem(&uinflight, &req);
	if (!p || !p->ts) {
		if (process_watched(bpf_get_current_pid_tgid() >> 32))
			bump(STAT_ASYNC_UNMATCHED);
		return 0;
	}
	__u64 now = bpf_ktime_get_ns();
	struct uinfl v = *p;
	p->ts = 0;
	if (v.next) {
		struct uinfl *n = bpf_map_lookup_elem(&uinflight, &v.next);
		if (n && n->ts)
			n->ts = now;
	}
	__u32 op = v.op;
	if (op == OP_URING_FSYNC && (v.flags & UR_LINKED))
		op = OP_URING_FSYNC_LINKED;
	struct ukey k = { .tgid = v.tgid, .op = op };
	struct inode *in = 0;
	if (core_ok) {
		// struct io_kiocb starts with its struct file *.
		struct file *f = 0;
		if (!bpf_probe_read_kernel(&f, sizeof(f), (void *)req))
			in = file_inode_of(f, &k.ino);
		k.inode = (__u64)in;
	}
	struct uval *u = bpf_map_lookup_elem(&uhist, &k);
	if (!u) {
		struct uval zero = {};
		bpf_map_update_elem(&uhist, &k, &zero, BPF_NOEXIST);
		u = bpf_map_lookup_elem(&uhist, &k);
	}
	if (!u) {
		bump(STAT_HIST_FULL);
		return 0;
	}
	if (in && !u->dev)
		u->dev = inode_dev(in);
	__u64 lat = now > v.ts ? now - v.ts : 0;
	u->count += 1;
	u->lat_ns += lat;
	if (res < 0)
		u->errors += 1;
	else if (op <= OP_URING_WRITE_FIXED)
		u->bytes += res;
	if (v.flags & UR_SQ_THREAD)
		u->sq_thread += 1;
	if (v.flags & UR_ASYNC)
		u->async_work += 1;
	u->buckets[bucket(lat / 1000)] += 1;
	return 0;
}

// On the tracepoint: the request pointer and result from its record, read
// in one helper call.
SEC("tracepoint/io_uring/io_uring_complete")
int uring_done_tp(void *ctx)
{
	__u8 rec[UDONE_SPAN] = {};
	if (udone_len > UDONE_SPAN ||
	    bpf_probe_read_kernel(rec, udone_len, (char *)ctx + udone_req_off))
		return 0;
	return uring_completed(*(__u64 *)rec, *(__s32 *)(rec + (udone_res_rel & (UDONE_SPAN - 4))));
}

// The same two on the raw tracepoints, typed by the kernel's BTF
// (include/trace/events/io_uring.h): io_uring_submit_req(struct io_kiocb
// *req) and io_uring_complete(struct io_ring_ctx *ctx, void *req, struct
// io_uring_cqe *cqe). The fields are loaded directly (CO-RE), where the
// tracepoint first builds its record (the opcode's name copied as a
// string among the rest) and the program then copies it out; the
// record's sq_thread is `req->ctx->flags & IORING_SETUP_SQPOLL`.
#define IORING_SETUP_SQPOLL 2

struct io_ring_ctx {
	unsigned int flags;
} CORE;

struct io_kiocb {
	__u8 opcode;
	struct io_ring_ctx *ctx;
} CORE;

struct io_uring_cqe {
	__s32 res;
} CORE;

SEC("tp_btf/io_uring_submit_req")
int uring_submit(__u64 *ctx)
{
	struct io_kiocb *req = (struct io_kiocb *)ctx[0];
	return uring_submitted(ctx[0], req->opcode, !!(req->ctx->flags & IORING_SETUP_SQPOLL));
}

SEC("tp_btf/io_uring_complete")
int uring_done(__u64 *ctx)
{
	struct io_uring_cqe *cqe = (struct io_uring_cqe *)ctx[2];
	return uring_completed(ctx[1], cqe->res);
}

// The class and flags of a request from its rwbs string (blk_fill_rwbs):
// an optional 'F' for a preflush, then the operation ('R', 'W', 'D', 'F'
// for a flush, 'N', 'E' for secure erase), then 'F' for FUA and other
// flags.
static __attribute__((always_inline)) __u32 blk_class(const char *r, __u32 *flags)
{
	char op = r[0], next = r[1];
	*flags = 0;
	if (op == 'F' && (next == 'R' || next == 'W' || next == 'D' || next == 'F' || next == 'N' || next == 'E')) {
		*flags |= BLK_PREFLUSH;
		op = next;
		next = r[2];
	}
	if (next == 'F')
		*flags |= BLK_FUA;
	// A flush's own 'F' is the operation, not a preflush before it.
	if (op == 'F')
		*flags = 0;
	switch (op) {
	case 'R': return BLK_READ;
	case 'W': return BLK_WRITE;
	case 'F': return BLK_FLUSH;
	case 'D': return BLK_DISCARD;
	default: return BLK_OTHER;
	}
}

static __attribute__((always_inline)) int watched_now(__u32 *tgid_out)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	if (!is_watched(tgid, tid))
		return 0;
	*tgid_out = tgid;
	return 1;
}

// --device: every request on the watched device is its issuer's, whoever
// that is (a kworker for writeback, kswapd, a process not watched); its
// command name is kept for user space, which may never see the process.
static __attribute__((always_inline)) int device_issuer(__u32 dev, __u32 *tgid_out)
{
	if (!device_target || dev != device_target)
		return 0;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct comm c = {};
	bpf_get_current_comm(c.comm, sizeof(c.comm));
	bpf_map_update_elem(&issuers, &tgid, &c, BPF_ANY);
	*tgid_out = tgid;
	return 1;
}

SEC("tracepoint/block/block_io_start")
int blk_start(void *ctx)
{
	__u32 tgid;
	struct bkey k = {};
	bpf_probe_read_kernel(&k.dev, 4, (char *)ctx + start_dev_off);
	bpf_probe_read_kernel(&k.sector, 8, (char *)ctx + start_sector_off);
	if (!watched_now(&tgid) && !device_issuer(k.dev, &tgid))
		return 0;
	bpf_map_update_elem(&bwho, &k, &tgid, BPF_ANY);
	return 0;
}

SEC("tracepoint/block/block_rq_issue")
int blk_issue(void *ctx)
{
	struct bkey k = {};
	__u32 nr = 0;
	char rwbs[4] = {};
	bpf_probe_read_kernel(&k.dev, 4, (char *)ctx + issue_dev_off);
	bpf_probe_read_kernel(&k.sector, 8, (char *)ctx + issue_sector_off);
	bpf_probe_read_kernel(&nr, 4, (char *)ctx + issue_nr_off);
	bpf_probe_read_kernel(rwbs, 4, (char *)ctx + issue_rwbs_off);
	struct binfl v = { .ts = bpf_ktime_get_ns(), .bytes = nr * 512 };
	v.class = blk_class(rwbs, &v.flags);
	__u64 *queued = bpf_map_lookup_elem(&bqueued, &k);
	if (queued) {
		if (*queued <= v.ts) {
			v.queue_ns = v.ts - *queued;
			v.flags |= BLK_QUEUED;
		}
		bpf_map_delete_elem(&bqueued, &k);
	}
	__u32 *who = bpf_map_lookup_elem(&bwho, &k);
	if (who) {
		v.tgid = *who;
		bpf_map_delete_elem(&bwho, &k);
	} else {
		__u32 tgid;
		if (watched_now(&tgid) || device_issuer(k.dev, &tgid))
			v.tgid = tgid;
	}
	if (bpf_map_update_elem(&binflight, &k, &v, BPF_ANY))
		bump(STAT_BLK_TABLE_FULL);
	return 0;
}

SEC("tracepoint/block/block_rq_complete")
int blk_done(void *ctx)
{
	struct bkey k = {};
	bpf_probe_read_kernel(&k.dev, 4, (char *)ctx + done_dev_off);
	bpf_probe_read_kernel(&k.sector, 8, (char *)ctx + done_sector_off);
	struct binfl *f = bpf_map_lookup_elem(&binflight, &k);
	if (!f) {
		// A request that asked for a flush completes after the flush
		// request that was issued for it, without an issue of its own
		// (no data, sector 0): not a lost request.
		__u32 nr = 0;
		bpf_probe_read_kernel(&nr, 4, (char *)ctx + done_nr_off);
		// --device: only that device's are the watch's.
		if (nr && (!device_target || k.dev == device_target))
			bump(STAT_BLK_UNMATCHED);
		return 0;
	}
	__u64 lat = bpf_ktime_get_ns() - f->ts;
	struct bhkey hk = { .dev = k.dev, .tgid = f->tgid, .class = f->class };
	struct bhval *v = bpf_map_lookup_elem(&bhist, &hk);
	if (!v) {
		bpf_map_update_elem(&bhist, &hk, &bhval_zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&bhist, &hk);
	}
	if (v) {
		v->count += 1;
		v->bytes += f->bytes;
		v->lat_ns += lat;
		if (f->flags & BLK_FUA)
			v->fua += 1;
		if (f->flags & BLK_PREFLUSH)
			v->preflush += 1;
		v->buckets[bucket(lat / 1000)] += 1;
		if (f->flags & BLK_QUEUED) {
			v->queued += 1;
			v->queue_ns += f->queue_ns;
			v->qbuckets[bucket(f->queue_ns / 1000)] += 1;
		}
	} else {
		bump(STAT_BLK_HIST_FULL);
	}
	// A watched process's own requests go to user space whatever the
	// device (its file may not be mapped yet); others' only on the
	// devices holding watched files.
	if (bevents_mode == BEVENTS_ALL ||
	    (bevents_mode == BEVENTS_WATCHED && (f->tgid || bpf_map_lookup_elem(&bdevs, &k.dev)))) {
		struct bevent *e = bpf_ringbuf_reserve(&bevents, sizeof(*e), 0);
		if (e) {
			e->sector = k.sector;
			e->lat_ns = lat;
			e->queue_ns = f->queue_ns;
			e->dev = k.dev;
			e->bytes = f->bytes;
			e->tgid = f->tgid;
			e->class = f->class;
			e->flags = f->flags;
			e->pad = 0;
			bpf_ringbuf_submit(e, 0);
		} else {
			bump(STAT_BLK_RB_DROPS);
		}
	}
	bpf_map_delete_elem(&binflight, &k);
	return 0;
}

// ---- Queue time: from the bio's queueing to its request's issue ----

// Whether the block layer's queueing on `dev` is watched: every device's,
// or with --device that one's.
static __attribute__((always_inline)) int queue_watched(__u32 dev)
{
	return !device_target || dev == device_target;
}

// A bio entered the block layer (after any blk-throttle delay: a bio
// held by a cgroup's io.max is queued when the throttle releases it).
SEC("tracepoint/block/block_bio_queue")
int blk_queue(void *ctx)
{
	struct bkey k = {};
	bpf_probe_read_kernel(&k.dev, 4, (char *)ctx + queue_dev_off);
	if (!queue_watched(k.dev))
		return 0;
	bpf_probe_read_kernel(&k.sector, 8, (char *)ctx + queue_sector_off);
	__u64 now = bpf_ktime_get_ns();
	bpf_map_update_elem(&bqueued, &k, &now, BPF_ANY);
	return 0;
}

static __attribute__((always_inline)) struct bqstat *bqstat_of(__u32 dev)
{
	struct bqstat *q = bpf_map_lookup_elem(&bqstats, &dev);
	if (q)
		return q;
	struct bqstat zero = {};
	bpf_map_update_elem(&bqstats, &dev, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&bqstats, &dev);
}

// A bio split at `new_sector` (too large for the device, or across a
// boundary): the part from `new_sector` on goes on as its own request,
// queued when the whole was.
SEC("tracepoint/block/block_split")
int blk_split(void *ctx)
{
	struct bkey k = {};
	__u64 next = 0;
	bpf_probe_read_kernel(&k.dev, 4, (char *)ctx + split_dev_off);
	if (!queue_watched(k.dev))
		return 0;
	bpf_probe_read_kernel(&k.sector, 8, (char *)ctx + split_sector_off);
	bpf_probe_read_kernel(&next, 8, (char *)ctx + split_new_off);
	struct bqstat *q = bqstat_of(k.dev);
	if (q)
		q->splits += 1;
	__u64 *t = bpf_map_lookup_elem(&bqueued, &k);
	if (t) {
		__u64 ts = *t;
		// An entry there is an older bio's, never issued (merged): the
		// rest had no queueing of its own.
		struct bkey rest = { .dev = k.dev, .sector = next };
		bpf_map_update_elem(&bqueued, &rest, &ts, BPF_ANY);
	}
	return 0;
}

// A bio merged behind a queued request: it is issued as part of that
// request, timed from the request's first bio.
SEC("tracepoint/block/block_bio_backmerge")
int blk_backmerge(void *ctx)
{
	struct bkey k = {};
	bpf_probe_read_kernel(&k.dev, 4, (char *)ctx + bmerge_dev_off);
	if (!queue_watched(k.dev))
		return 0;
	bpf_probe_read_kernel(&k.sector, 8, (char *)ctx + bmerge_sector_off);
	bpf_map_delete_elem(&bqueued, &k);
	struct bqstat *q = bqstat_of(k.dev);
	if (q)
		q->bio_merges += 1;
	return 0;
}

// A bio merged in front of a queued request: the request now starts at
// the bio's sector, and is timed from the bio's queueing (the later).
SEC("tracepoint/block/block_bio_frontmerge")
int blk_frontmerge(void *ctx)
{
	__u32 dev = 0;
	bpf_probe_read_kernel(&dev, 4, (char *)ctx + bmerge_dev_off);
	if (!queue_watched(dev))
		return 0;
	struct bqstat *q = bqstat_of(dev);
	if (q)
		q->bio_merges += 1;
	return 0;
}

// Two queued requests merged into one (in the I/O scheduler).
SEC("tracepoint/block/block_rq_merge")
int blk_rq_merge(void *ctx)
{
	__u32 dev = 0;
	bpf_probe_read_kernel(&dev, 4, (char *)ctx + rmerge_dev_off);
	if (!queue_watched(dev))
		return 0;
	struct bqstat *q = bqstat_of(dev);
	if (q)
		q->rq_merges += 1;
	return 0;
}

// A descriptor closed (close) or replaced (dup2, dup3 onto an open
// number) by a watched process: later calls on the number are another
// file's, in a new row; the same-block tracking starts again.
static __attribute__((always_inline)) int fd_gone(__s32 fd)
{
	__u32 tgid;
	if (fd < 0 || !watched_now(&tgid))
		return 0;
	struct fdkey fk = { .tgid = tgid, .fd = fd };
	struct fdstate *g = bpf_map_lookup_elem(&fdgen, &fk);
	if (g) {
		g->gen += 1;
		g->end = 0;
	} else {
		struct fdstate one = { .gen = 1 };
		bpf_map_update_elem(&fdgen, &fk, &one, BPF_ANY);
	}
	return 0;
}

// close(fd): the number is free whatever close returns.
SEC("tracepoint/syscalls/sys_enter_close")
int enter_close(struct sys_enter *ctx)
{ return fd_gone((__s32)ctx->args[0]); }

// dup2(oldfd, newfd), dup3(oldfd, newfd, flags): newfd is closed first
// (a dup that then fails only starts a row early).
SEC("tracepoint/syscalls/sys_enter_dup2")
int enter_dup2(struct sys_enter *ctx)
{ return ctx->args[0] == ctx->args[1] ? 0 : fd_gone((__s32)ctx->args[1]); }

SEC("tracepoint/syscalls/sys_enter_dup3")
int enter_dup3(struct sys_enter *ctx)
{ return ctx->args[0] == ctx->args[1] ? 0 : fd_gone((__s32)ctx->args[1]); }

// --follow: a process forked by a watched process is watched from its
// first instruction (the fork runs in the parent's context). Threads fire
// this tracepoint too: their ids land in `watched` but are never looked
// up (the key is a tgid); user space removes them.
SEC("tracepoint/sched/sched_process_fork")
int follow_fork(void *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 *only = bpf_map_lookup_elem(&watched, &tgid);
	if (!only || *only)
		return 0;
	__u32 child = 0, all = 0;
	bpf_probe_read_kernel(&child, 4, (char *)ctx + fork_child_off);
	if (child && child != tgid)
		bpf_map_update_elem(&watched, &child, &all, BPF_NOEXIST);
	return 0;
}

// ---- Paths at open time, and descriptors closed in bulk ----

// The entry of an open (path in user memory) or a dup (`path` is null,
// `dfd` is the descriptor duplicated).
static __attribute__((always_inline)) int open_enter(__s32 dfd, const char *path, __u32 flags, __u32 kind)
{
	__u32 tgid;
	if (!watched_now(&tgid))
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct opening o = { .dfd = dfd, .kind = kind, .flags = flags };
	if (path) {
		long n = bpf_probe_read_user_str(o.path, sizeof(o.path), path);
		o.len = n > 0 ? (__u32)n : 0;
	}
	if (bpf_map_update_elem(&openings, &tid, &o, BPF_ANY))
		bump(STAT_OPEN_FULL);
	return 0;
}

static __attribute__((always_inline)) __u32 gen_of(__u32 tgid, __s32 fd)
{
	struct fdkey gk = { .tgid = tgid, .fd = fd };
	struct fdstate *g = bpf_map_lookup_elem(&fdgen, &gk);
	return g ? g->gen : 0;
}

// The exit: a new descriptor `ret` goes to user space with the
// generation its calls will carry.
static __attribute__((always_inline)) int open_exit(__s64 ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct opening *o = bpf_map_lookup_elem(&openings, &tid);
	if (!o)
		return 0;
	if (ret >= 0) {
		// F_SETFL returns 0 and changes the descriptor it was given.
		__s32 fd = o->kind == KIND_SETFL ? o->dfd : (__s32)ret;
		if (o->kind != KIND_SETFL) {
			struct fdkey gk = { .tgid = tgid, .fd = fd };
			struct fdstate zero = {};
			bpf_map_update_elem(&fdgen, &gk, &zero, BPF_NOEXIST);
		}
		struct open_event *e = bpf_ringbuf_reserve(&opens, sizeof(*e), 0);
		if (e) {
			e->tgid = tgid;
			e->kind = o->kind;
			e->fd = fd;
			e->gen = gen_of(tgid, fd);
			e->dfd = o->dfd;
			e->src_gen = o->kind == KIND_DUP ? gen_of(tgid, o->dfd) : 0;
			e->flags = o->flags;
			e->len = o->len;
			e->dev = 0;
			e->pad = 0;
			e->ino = 0;
			if (core_ok && o->kind != KIND_SETFL) {
				struct file_id id = {};
				fd_file_id(fd, &id);
				e->dev = id.dev;
				e->ino = id.ino;
			}
			__builtin_memcpy(e->path, o->path, PATH_BYTES);
			bpf_ringbuf_submit(e, 0);
		} else {
			bump(STAT_OPEN_DROPS);
		}
	}
	bpf_map_delete_elem(&openings, &tid);
	return 0;
}

#define OPEN_EXIT(name)                                             \
	SEC("tracepoint/syscalls/sys_exit_" #name)                      \
	int name_exit_##name(struct sys_exit *ctx) { return open_exit(ctx->ret); }

#define AT_FDCWD -100

// openat(dfd, filename, flags, mode)
SEC("tracepoint/syscalls/sys_enter_openat")
int name_enter_openat(struct sys_enter *ctx)
{ return open_enter((__s32)ctx->args[0], (const char *)ctx->args[1], (__u32)ctx->args[2], KIND_OPEN); }
OPEN_EXIT(openat)

// openat2(dfd, filename, how, size): how->flags is its first field.
SEC("tracepoint/syscalls/sys_enter_openat2")
int name_enter_openat2(struct sys_enter *ctx)
{
	__u64 flags = 0;
	__u32 tgid;
	// Read `how` only for a watched process (this runs for every openat2).
	if (!watched_now(&tgid))
		return 0;
	bpf_probe_read_user(&flags, 8, (const void *)ctx->args[2]);
	return open_enter((__s32)ctx->args[0], (const char *)ctx->args[1], (__u32)flags, KIND_OPEN);
}
OPEN_EXIT(openat2)

// open(filename, flags, mode), where the architecture has it.
SEC("tracepoint/syscalls/sys_enter_open")
int name_enter_open(struct sys_enter *ctx)
{ return open_enter(AT_FDCWD, (const char *)ctx->args[0], (__u32)ctx->args[1], KIND_OPEN); }
OPEN_EXIT(open)

// creat(filename, mode) = open(filename, O_CREAT|O_WRONLY|O_TRUNC).
SEC("tracepoint/syscalls/sys_enter_creat")
int name_enter_creat(struct sys_enter *ctx)
{ return open_enter(AT_FDCWD, (const char *)ctx->args[0], 01 | 0100 | 01000, KIND_OPEN); }
OPEN_EXIT(creat)

// dup(oldfd), dup2(oldfd, newfd), dup3(oldfd, newfd, flags): the new
// number holds the old one's file.
SEC("tracepoint/syscalls/sys_enter_dup")
int name_enter_dup(struct sys_enter *ctx)
{ return open_enter((__s32)ctx->args[0], 0, 0, KIND_DUP); }
OPEN_EXIT(dup)

SEC("tracepoint/syscalls/sys_enter_dup2")
int name_enter_dup2(struct sys_enter *ctx)
{ return open_enter((__s32)ctx->args[0], 0, 0, KIND_DUP); }
OPEN_EXIT(dup2)

SEC("tracepoint/syscalls/sys_enter_dup3")
int name_enter_dup3(struct sys_enter *ctx)
{ return open_enter((__s32)ctx->args[0], 0, (__u32)ctx->args[2], KIND_DUP); }
OPEN_EXIT(dup3)

// fcntl(fd, F_DUPFD or F_DUPFD_CLOEXEC, min): a dup too;
// fcntl(fd, F_SETFL, flags): the descriptor's new status flags.
#define F_DUPFD 0
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
SEC("tracepoint/syscalls/sys_enter_fcntl")
int name_enter_fcntl(struct sys_enter *ctx)
{
	__u64 cmd = ctx->args[1];
	if (cmd == F_SETFL)
		return open_enter((__s32)ctx->args[0], 0, (__u32)ctx->args[2], KIND_SETFL);
	if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC)
		return 0;
	return open_enter((__s32)ctx->args[0], 0, 0, KIND_DUP);
}
OPEN_EXIT(fcntl)

// Descriptors closed in bulk start a new row each: those numbered from
// `first` up to `last`, at most FD_SCAN of them (a bounded loop the
// verifier walks; numbers beyond keep their row), and only those with an
// entry in fdgen (every one that had a call has one, see leave()).
#define FD_SCAN 1024

static __attribute__((always_inline)) void bump_range(__u32 tgid, __u32 first, __u32 last)
{
	for (__u32 i = 0; i < FD_SCAN; i++) {
		__u32 fd = first + i;
		if (fd > last || fd < first)
			break;
		struct fdkey fk = { .tgid = tgid, .fd = (__s32)fd };
		struct fdstate *g = bpf_map_lookup_elem(&fdgen, &fk);
		if (g) {
			g->gen += 1;
			g->end = 0;
		}
	}
}

// close_range(first, last, flags): with CLOSE_RANGE_CLOEXEC the numbers
// are only marked, and close at exec (below).
#define CLOSE_RANGE_CLOEXEC 4
SEC("tracepoint/syscalls/sys_enter_close_range")
int name_enter_close_range(struct sys_enter *ctx)
{
	__u32 tgid;
	if (!watched_now(&tgid) || (ctx->args[2] & CLOSE_RANGE_CLOEXEC))
		return 0;
	bump_range(tgid, (__u32)ctx->args[0], (__u32)ctx->args[1]);
	return 0;
}

// exec closes the close-on-exec descriptors. Which ones those are is in
// the kernel's file table, not in any tracepoint record: every
// descriptor with an entry starts a new row (a file kept across exec
// gets a second row, under the new program).
SEC("tracepoint/sched/sched_process_exec")
int name_exec(void *ctx)
{
	__u32 tgid;
	if (!watched_now(&tgid))
		return 0;
	bump_range(tgid, 0, FD_SCAN - 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
