/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The self-generated core (Action=userspace) on the host, without a crash: a forked child stops
 * itself inside two known functions (with threads, with a heap buffer referenced from its stack);
 * ptrace supplies the full registers the probe would, and the core is written from the child's
 * /proc directory exactly as the daemon writes it from a held crash. The core is read back with
 * libelf, checked against /proc, and loaded by gdb. Also: the /proc parsers, the policy keys
 * MatchSiCode=/MatchFaultAddress=/UserspaceDump=, and the probe's freshness check.
 */

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/procfs.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/policy.h"
#include "crash/decide.h"
#include "parser/client.h"
#include "fixtures.h"
#include "harness.h"
#include "selfdump/core-elf.h"
#include "selfdump/dump-filter.h"
#include "selfdump/probe.h"
#include "selfdump/proc-maps.h"
#include "selfdump/proc-threads.h"
#include "selfdump/selfdump.h"
#include "shared/child.h"
#include "shared/cell-ids.h"
#include "shared/elf-build-id.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "shared/timestamp.h"
#include "store/store.h"
#include "store/core-writer.h"

#define HEAP_MARK 0x5a

/* ---- the child ------------------------------------------------------------------------------ */

static void *thread_idle(void *arg) {
        for (;;)
                pause();
        return NULL;
}

__attribute__((noinline)) static int userspace_test_leaf(int depth) {
        char *volatile heap = malloc(3 * 4096); /* the pointer lives on this frame's stack */
        if (!heap)
                _exit(2);
        memset(heap, HEAP_MARK, 3 * 4096);
        raise(SIGSTOP);
        __asm__ volatile("" ::: "memory");
        return depth + heap[0];
}

__attribute__((noinline)) static int userspace_test_caller(int n) {
        int r = userspace_test_leaf(n);
        __asm__ volatile("" ::: "memory");
        return r + 1;
}

struct child {
        pid_t pid;
        int proc_fd;
        struct user_regs_struct regs;
        unsigned n_threads;
};

static void child_start(struct child *c, unsigned extra_threads) {
        int status;

        *c = (struct child) { .proc_fd = -1, .n_threads = 1 + extra_threads };
        c->pid = fork();
        CHECK(c->pid >= 0);
        if (c->pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                for (unsigned i = 0; i < extra_threads; i++) {
                        pthread_t t;
                        if (pthread_create(&t, NULL, thread_idle, NULL) != 0)
                                _exit(3);
                }
                _exit(userspace_test_caller(1) & 0x7f);
        }
        CHECK_INT(waitpid(c->pid, &status, WUNTRACED), ==, c->pid);
        CHECK(WIFSTOPPED(status));

        /* The full registers the probe would give, from ptrace. */
        CHECK_OK(ptrace(PTRACE_SEIZE, c->pid, NULL, NULL));
        CHECK_OK(ptrace(PTRACE_INTERRUPT, c->pid, NULL, NULL));
        CHECK_INT(waitpid(c->pid, &status, __WALL), ==, c->pid);
        CHECK_OK(ptrace(PTRACE_GETREGS, c->pid, NULL, &c->regs));

        char path[32];
        snprintf(path, sizeof path, "/proc/%d", (int) c->pid);
        c->proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(c->proc_fd >= 0);
}

static void child_stop(struct child *c) {
        safe_close(c->proc_fd);
        (void) kill(c->pid, SIGKILL);
        (void) waitpid(c->pid, NULL, __WALL);
}

/* Writes the child's core (plain) to path, as run_uid once the child's /proc files are open (0: as we
 * are). */
static void write_core_as(struct child *c, enum userspace_mode mode, const char *path, uid_t run_uid,
                          struct selfdump_result *res) {
        struct selfdump_request req = {
                .proc_fd = c->proc_fd,
                .pid = c->pid,
                .uid = getuid(),
                .gid = getgid(),
                .mode = mode,
                .signal = { .signo = SIGSEGV, .si_code = 1, .have_addr = true, .addr = 0x10 },
                .crash_tid = c->pid,
                .have_crash_regs = true,
                .run_uid = run_uid,
                .run_gid = run_uid,
        };
        static_assert(sizeof c->regs == sizeof req.crash_regs, "user_regs_struct is the core's register set");
        memcpy(req.crash_regs, &c->regs, sizeof req.crash_regs);

        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        struct core_writer w;
        char error[256] = "";
        CHECK_OK(core_writer_init(&w, fd, COMPRESSION_NONE, 0));
        int r = selfdump_write(&req, &w, res, error, sizeof error);
        if (r < 0)
                test_fail(__FILE__, __LINE__, "selfdump_write: %s", error);
        CHECK_OK(core_writer_finish(&w));
        core_writer_done(&w);
}

static void write_core(struct child *c, enum userspace_mode mode, const char *path, struct selfdump_result *res) {
        write_core_as(c, mode, path, 0, res);
}

/* ---- reading the core back with libelf ------------------------------------------------------ */

struct core_view {
        int fd;
        Elf *elf;
        size_t n_prstatus;
        struct elf_prstatus first;
        bool prpsinfo, siginfo, auxv, file;
        siginfo_t si;
        size_t auxv_size;
};

static void core_open(const char *path, struct core_view *v) {
        GElf_Ehdr ehdr;
        size_t phnum;

        *v = (struct core_view) {};
        (void) elf_version(EV_CURRENT);
        v->fd = open(path, O_RDONLY | O_CLOEXEC);
        CHECK(v->fd >= 0);
        v->elf = elf_begin(v->fd, ELF_C_READ, NULL);
        CHECK(v->elf);
        CHECK(gelf_getehdr(v->elf, &ehdr));
        CHECK_INT(ehdr.e_type, ==, ET_CORE);
        CHECK_INT(ehdr.e_machine, ==, EM_X86_64);
        CHECK_INT(gelf_getclass(v->elf), ==, ELFCLASS64);
        CHECK(elf_getphdrnum(v->elf, &phnum) == 0);

        for (size_t i = 0; i < phnum; i++) {
                GElf_Phdr ph;
                CHECK(gelf_getphdr(v->elf, (int) i, &ph));
                if (ph.p_type != PT_NOTE)
                        continue;
                CHECK_INT(i, ==, 0); /* PT_NOTE first, as the kernel writes it */
                Elf_Data *data = elf_getdata_rawchunk(v->elf, (int64_t) ph.p_offset, ph.p_filesz, ELF_T_NHDR);
                CHECK(data);
                GElf_Nhdr nh;
                size_t off = 0, name_off, desc_off;
                while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
                        const char *desc = (const char *) data->d_buf + desc_off;
                        CHECK_STR((const char *) data->d_buf + name_off, "CORE");
                        switch (nh.n_type) {
                        case NT_PRSTATUS:
                                CHECK_INT(nh.n_descsz, ==, sizeof(struct elf_prstatus));
                                if (v->n_prstatus++ == 0)
                                        memcpy(&v->first, desc, sizeof v->first);
                                break;
                        case NT_PRPSINFO:
                                CHECK_INT(nh.n_descsz, ==, sizeof(struct elf_prpsinfo));
                                v->prpsinfo = true;
                                break;
                        case NT_SIGINFO:
                                CHECK_INT(nh.n_descsz, ==, sizeof(siginfo_t));
                                memcpy(&v->si, desc, sizeof v->si);
                                v->siginfo = true;
                                break;
                        case NT_AUXV:
                                v->auxv = true;
                                v->auxv_size = nh.n_descsz;
                                break;
                        case NT_FILE:
                                v->file = true;
                                CHECK(((const uint64_t *) desc)[0] > 0);
                                CHECK_INT(((const uint64_t *) desc)[1], ==, sysconf(_SC_PAGESIZE));
                                break;
                        }
                }
        }
}

static void core_close(struct core_view *v) {
        elf_end(v->elf);
        safe_close(v->fd);
}

/* The core's bytes at a process address, or false if no PT_LOAD holds them. */
static bool core_read(struct core_view *v, uint64_t addr, void *buf, size_t size) {
        size_t phnum;
        CHECK(elf_getphdrnum(v->elf, &phnum) == 0);
        for (size_t i = 0; i < phnum; i++) {
                GElf_Phdr ph;
                CHECK(gelf_getphdr(v->elf, (int) i, &ph));
                if (ph.p_type == PT_LOAD && addr >= ph.p_vaddr && addr + size <= ph.p_vaddr + ph.p_filesz) {
                        /* Pages at page offsets, as the kernel lays them out; a compact core packs
                         * its windows (p_align 1). */
                        if (ph.p_align >= 4096)
                                CHECK_INT(ph.p_offset % 4096, ==, 0);
                        return pread(v->fd, buf, size, (off_t) (ph.p_offset + addr - ph.p_vaddr)) == (ssize_t) size;
                }
        }
        return false;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static char *tmp_core(const char *dir, const char *name) {
        char *p;
        CHECK(asprintf(&p, "%s/%s", dir, name) > 0);
        return p;
}

TEST(core_notes_and_stack_match_proc) {
        struct child c;
        struct selfdump_result res;
        struct core_view v;
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_free_ char *path = tmp_core(dir, "core");

        child_start(&c, 3);
        write_core(&c, USERSPACE_MODE_STACKS, path, &res);
        CHECK_INT(res.n_threads, ==, 4);
        CHECK_INT(res.n_threads_full_regs, ==, 1);
        CHECK(!res.truncated);

        core_open(path, &v);
        CHECK_INT(v.n_prstatus, ==, 4);
        CHECK_INT(v.first.pr_pid, ==, c.pid);        /* the crashing thread first */
        CHECK_INT(v.first.pr_cursig, ==, SIGSEGV);
        CHECK(memcmp(&v.first.pr_reg, &c.regs, sizeof c.regs) == 0);
        CHECK(v.prpsinfo && v.siginfo && v.auxv && v.file);
        CHECK_INT(v.si.si_signo, ==, SIGSEGV);
        CHECK_INT(v.si.si_code, ==, 1);
        CHECK_INT((uintptr_t) v.si.si_addr, ==, 0x10);

        _cleanup_free_ char *auxv = NULL;
        size_t auxv_size;
        CHECK_OK(read_file_at(c.proc_fd, "auxv", 8192, &auxv, &auxv_size, NULL));
        CHECK_INT(v.auxv_size, ==, auxv_size);

        /* The stack around rsp is in the core, byte for byte as /proc/<pid>/mem has it. */
        uint8_t want[512], got[512];
        _cleanup_close_ int mem = openat(c.proc_fd, "mem", O_RDONLY | O_CLOEXEC);
        CHECK(mem >= 0);
        CHECK_INT(pread(mem, want, sizeof want, (off_t) c.regs.rsp), ==, sizeof want);
        CHECK(core_read(&v, c.regs.rsp, got, sizeof got));
        CHECK(memcmp(want, got, sizeof want) == 0);
        /* The executable's ELF header (its build-id note is on that page). */
        uint64_t phdr = 0;
        for (size_t i = 0; i + 16 <= auxv_size; i += 16)
                if (*(uint64_t *) (auxv + i) == AT_PHDR)
                        phdr = *(uint64_t *) (auxv + i + 8);
        CHECK(phdr != 0);
        CHECK(core_read(&v, phdr & ~UINT64_C(4095), got, 4));
        CHECK(memcmp(got, ELFMAG, SELFMAG) == 0);
        core_close(&v);

        child_stop(&c);
        tmpdir_remove(dir);
}

/* The writer reads the task's memory without privileges: once /proc/<pid>/{mem,maps,...} are open
 * it is nobody, and the core is the same as one written by root. */
TEST(core_written_as_nobody_after_the_files_are_open) {
        struct child c;
        struct selfdump_result res = {}, root_res = {};
        struct core_view v;
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_free_ char *path = tmp_core(dir, "nobody"), *root_path = tmp_core(dir, "root");
        if (geteuid() != 0) {
                printf("SKIP: needs root to change ids\n");
                exit(77);
        }
        child_start(&c, 0);
        write_core(&c, USERSPACE_MODE_STACKS, root_path, &root_res);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                write_core_as(&c, USERSPACE_MODE_STACKS, path, 65534, &res);
                _exit(getuid() == 65534 && geteuid() == 65534 && res.memory_bytes == root_res.memory_bytes ? 0 : 1);
        }
        int st = 0;
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        core_open(path, &v);
        CHECK_INT(v.n_prstatus, ==, 1);
        uint8_t want[256], got[256];
        _cleanup_close_ int mem = openat(c.proc_fd, "mem", O_RDONLY | O_CLOEXEC);
        CHECK(mem >= 0);
        CHECK_INT(pread(mem, want, sizeof want, (off_t) c.regs.rsp), ==, sizeof want);
        CHECK(core_read(&v, c.regs.rsp, got, sizeof got));
        CHECK(memcmp(want, got, sizeof want) == 0);
        core_close(&v);
        child_stop(&c);
        tmpdir_remove(dir);
}

TEST(core_modes_heap_refs_and_all_writable) {
        struct child c;
        struct selfdump_result stacks, refs, all;
        struct core_view v;
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_free_ char *p1 = tmp_core(dir, "stacks"), *p2 = tmp_core(dir, "refs"), *p3 = tmp_core(dir, "all");

        child_start(&c, 0);
        write_core(&c, USERSPACE_MODE_STACKS, p1, &stacks);
        write_core(&c, USERSPACE_MODE_STACKS_HEAP_REFS, p2, &refs);
        write_core(&c, USERSPACE_MODE_ALL_WRITABLE, p3, &all);
        CHECK(stacks.memory_bytes < refs.memory_bytes);
        CHECK(refs.memory_bytes <= all.memory_bytes);

        /* The heap buffer whose pointer is on the leaf's stack: in refs and all, not in stacks. */
        struct proc_maps maps;
        CHECK_OK(proc_maps_read(c.proc_fd, &maps));
        _cleanup_close_ int mem = openat(c.proc_fd, "mem", O_RDONLY | O_CLOEXEC);
        uint64_t words[1024], heap = 0;
        CHECK_INT(pread(mem, words, sizeof words, (off_t) c.regs.rsp), ==, sizeof words);
        for (size_t i = 0; i < ELEMENTSOF(words) && !heap; i++) {
                const struct proc_mapping *m = proc_maps_find(&maps, words[i]);
                uint8_t b;
                if (m && m->path && strcmp(m->path, "[heap]") == 0 &&
                    pread(mem, &b, 1, (off_t) words[i]) == 1 && b == HEAP_MARK)
                        heap = words[i];
        }
        proc_maps_done(&maps);
        CHECK(heap != 0);

        uint8_t b = 0;
        core_open(p1, &v);
        CHECK(!core_read(&v, heap, &b, 1));
        core_close(&v);
        core_open(p2, &v);
        CHECK(core_read(&v, heap, &b, 1));
        CHECK_INT(b, ==, HEAP_MARK);
        core_close(&v);
        core_open(p3, &v);
        CHECK(core_read(&v, heap, &b, 1));
        core_close(&v);

        child_stop(&c);
        tmpdir_remove(dir);
}

TEST(core_size_limit_truncates) {
        struct child c;
        struct selfdump_result res;
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_free_ char *path = tmp_core(dir, "core");

        child_start(&c, 0);
        struct selfdump_request req = {
                .proc_fd = c.proc_fd, .pid = c.pid, .mode = USERSPACE_MODE_ALL_WRITABLE,
                .signal = { .signo = SIGSEGV }, .max_size = 10000,
        };
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        struct core_writer w;
        char error[256];
        CHECK_OK(core_writer_init(&w, fd, COMPRESSION_NONE, 0));
        CHECK_OK(selfdump_write(&req, &w, &res, error, sizeof error));
        CHECK_OK(core_writer_finish(&w));
        core_writer_done(&w);
        CHECK(res.truncated);
        CHECK_INT(res.size, ==, 10000);
        struct stat st;
        CHECK(stat(path, &st) == 0);
        CHECK_INT(st.st_size, ==, 10000);
        child_stop(&c);
        tmpdir_remove(dir);
}

static int run_gdb(const char *core, char **ret_output) {
        char self[512] = "", cmd[2048];
        if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0)
                return -errno;
        snprintf(cmd, sizeof cmd,
                 "gdb -nx -batch -ex 'set debuginfod enabled off' -ex bt -ex 'info threads' "
                 "-ex 'info registers rip rsp' '%s' '%s' 2>&1", self, core);
        FILE *f = popen(cmd, "r");
        if (!f)
                return -errno;
        size_t size = 0;
        char *out = NULL;
        FILE *m = open_memstream(&out, &size);
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
                fwrite(buf, 1, n, m);
        fclose(m);
        int status = pclose(f);
        *ret_output = out;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -EIO;
}

TEST(gdb_backtrace_threads_and_registers) {
        struct child c;
        struct selfdump_result res;
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_free_ char *path = tmp_core(dir, "core");
        _cleanup_free_ char *out = NULL;

        if (system("gdb --version >/dev/null 2>&1") != 0) {
                printf("SKIP: no gdb\n");
                exit(77);
        }
        child_start(&c, 7);
        write_core(&c, USERSPACE_MODE_STACKS, path, &res);
        CHECK_INT(res.n_threads, ==, 8);
        CHECK_INT(run_gdb(path, &out), ==, 0);
        printf("%s", out);

        CHECK(strstr(out, "userspace_test_leaf"));
        CHECK(strstr(out, "userspace_test_caller"));
        /* 8 threads, the crashing one current. */
        size_t threads = 0;
        for (const char *l = out; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
                if (strstr(l, "LWP ") && (strncmp(l, "* ", 2) == 0 || strncmp(l, "  ", 2) == 0) &&
                    strspn(l + 2, " 0123456789") > 0 && l[2 + strspn(l + 2, " ")] >= '1' && l[2 + strspn(l + 2, " ")] <= '9')
                        threads++;
        CHECK_INT(threads, ==, 8);
        char rip[64], rsp[64];
        snprintf(rip, sizeof rip, "0x%llx", (unsigned long long) c.regs.rip);
        snprintf(rsp, sizeof rsp, "0x%llx", (unsigned long long) c.regs.rsp);
        CHECK(strstr(out, rip));
        CHECK(strstr(out, rsp));

        child_stop(&c);
        tmpdir_remove(dir);
}

/* The compact core a record carries (COREDUMP=): made by the real coredumpd-parser as nobody from a
 * full core, plain and zstd; within its bound; the crashing thread's stack byte for byte; gdb
 * unwinds it into the caller with every thread. Too small a bound and a file that is no core are
 * refused, never answered with a partial core. */
static void write_core_compressed(struct child *c, const char *path, enum compression compress) {
        struct selfdump_request req = {
                .proc_fd = c->proc_fd,
                .pid = c->pid,
                .uid = getuid(),
                .gid = getgid(),
                .mode = USERSPACE_MODE_ALL_WRITABLE,
                .signal = { .signo = SIGSEGV, .si_code = 1, .have_addr = true, .addr = 0x10 },
                .crash_tid = c->pid,
                .have_crash_regs = true,
        };
        struct selfdump_result res;
        char error[256] = "";
        memcpy(req.crash_regs, &c->regs, sizeof req.crash_regs);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        struct core_writer w;
        CHECK_OK(core_writer_init(&w, fd, compress, 1));
        if (selfdump_write(&req, &w, &res, error, sizeof error) < 0)
                test_fail(__FILE__, __LINE__, "selfdump_write: %s", error);
        CHECK_OK(core_writer_finish(&w));
        core_writer_done(&w);
}

static int compact_from(const char *path, uint64_t max_size, void **ret, size_t *ret_size, char *reason,
                        size_t reason_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        return parser_compact_core(fd, max_size, &(struct tenant) { .uid = 0, .host = true }, ret, ret_size, reason, reason_size);
}

TEST(compact_core_for_the_record) {
        struct child c;
        struct core_view v;
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_free_ char *full = tmp_core(dir, "core.full");
        _cleanup_free_ char *full_zst = tmp_core(dir, "core.full.zst");
        _cleanup_free_ char *compact = tmp_core(dir, "core.compact");
        _cleanup_free_ char *out = NULL;
        char reason[256] = "";
        const uint64_t bound = 1024 * 1024;

        if (geteuid() != 0) {
                printf("SKIP: the parser changes to nobody: needs root\n");
                exit(77);
        }
        child_start(&c, 3);
        write_core_compressed(&c, full, COMPRESSION_NONE);
        write_core_compressed(&c, full_zst, COMPRESSION_ZSTD);
        struct stat st;
        CHECK(stat(full, &st) == 0);
        printf("full core: %lld bytes\n", (long long) st.st_size);

        _cleanup_free_ void *buf = NULL;
        size_t size = 0;
        int r = compact_from(full, bound, &buf, &size, reason, sizeof reason);
        if (r < 0)
                test_fail(__FILE__, __LINE__, "compact: %s (%s)", reason, strerror(-r));
        printf("compact core: %zu bytes\n", size);
        CHECK(size <= bound);
        CHECK((uint64_t) size < (uint64_t) st.st_size);
        _cleanup_close_ int fd = open(compact, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        CHECK_INT(write(fd, buf, size), ==, (ssize_t) size);

        /* Notes as they were; the crashing thread's stack from below its sp, as /proc has it. */
        core_open(compact, &v);
        CHECK_INT(v.n_prstatus, ==, 4);
        CHECK_INT(v.first.pr_pid, ==, c.pid);
        CHECK(v.prpsinfo && v.siginfo && v.auxv && v.file);
        uint8_t want[2048], got[2048];
        _cleanup_close_ int mem = openat(c.proc_fd, "mem", O_RDONLY | O_CLOEXEC);
        CHECK(mem >= 0);
        CHECK_INT(pread(mem, want, sizeof want, (off_t) c.regs.rsp - 128), ==, sizeof want);
        CHECK(core_read(&v, c.regs.rsp - 128, got, sizeof got));
        CHECK(memcmp(want, got, sizeof want) == 0);
        core_close(&v);

        /* The same from the zstd core. */
        _cleanup_free_ void *buf2 = NULL;
        size_t size2 = 0;
        r = compact_from(full_zst, bound, &buf2, &size2, reason, sizeof reason);
        if (r < 0)
                test_fail(__FILE__, __LINE__, "compact (zstd): %s (%s)", reason, strerror(-r));
        CHECK_INT(size2, ==, size);
        CHECK(memcmp(buf, buf2, size) == 0);

        /* gdb: the crashing thread unwinds into its caller; all four threads are there. */
        if (system("gdb --version >/dev/null 2>&1") == 0) {
                CHECK_INT(run_gdb(compact, &out), ==, 0);
                printf("%s", out);
                CHECK(strstr(out, "userspace_test_leaf"));
                CHECK(strstr(out, "userspace_test_caller"));
                CHECK(strstr(out, "4 Thread") || strstr(out, "  4 "));
        }

        /* A bound the notes alone exceed, and a file that is no core: refused, nothing attached. */
        _cleanup_free_ void *none = NULL;
        size_t none_size = 1;
        CHECK_INT(compact_from(full, 512, &none, &none_size, reason, sizeof reason), ==, -E2BIG);
        CHECK(!none && none_size == 0);
        CHECK(strstr(reason, "too large even compacted"));
        _cleanup_free_ char *junk = tmp_core(dir, "junk");
        _cleanup_close_ int jfd = open(junk, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(jfd >= 0);
        CHECK_INT(write(jfd, "\177ELF this is not a core at all, only its first four bytes", 58), ==, 58);
        r = compact_from(junk, bound, &none, &none_size, reason, sizeof reason);
        CHECK(r < 0 && r != -E2BIG);
        printf("refused: %s\n", reason);

        child_stop(&c);
        tmpdir_remove(dir);
}

TEST(proc_parsers) {
        struct proc_stat st;
        /* A comm with ") " in it; fields through kstkeip (30). */
        CHECK_OK(proc_stat_parse("42 (a) b) S 1 42 42 0 -1 4194560 10 0 0 0 7 3 0 0 20 0 9 0 1234 1000 50 "
                                 "18446744073709551615 1 1 139000 140000 140001 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n", &st));
        CHECK_INT(st.state, ==, 'S');
        CHECK_INT(st.ppid, ==, 1);
        CHECK_INT(st.utime, ==, 7);
        CHECK_INT(st.stime, ==, 3);
        CHECK_INT(st.start_time, ==, 1234);
        CHECK_INT(st.start_stack, ==, 139000);
        CHECK_INT(st.kstkesp, ==, 140000);
        CHECK_INT(st.kstkeip, ==, 140001);
        CHECK_INT(proc_stat_parse("garbage", &st), ==, -EINVAL);

        uint64_t sp, pc;
        CHECK_OK(proc_syscall_parse("-1 0x7ffd1000 0x401000\n", &sp, &pc));
        CHECK_INT(sp, ==, 0x7ffd1000);
        CHECK_INT(pc, ==, 0x401000);
        CHECK_OK(proc_syscall_parse("34 0x0 0x1 0x2 0x3 0x4 0x5 0x7ffd2000 0x7f0000001234\n", &sp, &pc));
        CHECK_INT(sp, ==, 0x7ffd2000);
        CHECK_INT(pc, ==, 0x7f0000001234);
        CHECK_INT(proc_syscall_parse("running\n", &sp, &pc), ==, -EBUSY);

        struct proc_maps m;
        CHECK_OK(proc_maps_parse("00400000-00401000 r-xp 00000000 08:01 1234 /usr/bin/with space\n"
                                 "00601000-00602000 rw-p 00001000 08:01 1234 /usr/bin/with space\n"
                                 "7ffd0000-7ffd2000 rw-p 00000000 00:00 0 [stack]\n"
                                 "7ffe0000-7ffe1000 rw-s 00000000 00:05 7\n", &m));
        CHECK_INT(m.n, ==, 4);
        CHECK_STR(m.mappings[0].path, "/usr/bin/with space");
        CHECK(m.mappings[0].exec && !m.mappings[0].write);
        CHECK_INT(m.mappings[1].offset, ==, 0x1000);
        CHECK(m.mappings[3].shared && !m.mappings[3].path);
        CHECK(proc_maps_find(&m, 0x7ffd1fff) == &m.mappings[2]);
        CHECK(!proc_maps_find(&m, 0x7ffd2000));
        CHECK(proc_mapping_is_file(&m.mappings[1]) && !proc_mapping_is_file(&m.mappings[2]));
        CHECK_INT(m.mappings[0].dev_major, ==, 8);
        CHECK_INT(m.mappings[0].dev_minor, ==, 1);
        proc_maps_done(&m);
        CHECK_INT(proc_maps_parse("nonsense\n", &m), ==, -EINVAL);
        /* Parsed in place: a field missing, out of range or not the kernel's is a malformed line. */
        CHECK_INT(proc_maps_parse("00400000-00401000 r-xp 00000000 08:01\n", &m), ==, -EINVAL);
        CHECK_INT(proc_maps_parse("00400000 r-xp 00000000 08:01 1 /a\n", &m), ==, -EINVAL);
        CHECK_INT(proc_maps_parse("00401000-00400000 r-xp 00000000 08:01 1 /a\n", &m), ==, -EINVAL);
        CHECK_INT(proc_maps_parse("10000000000000000-10000000000000001 r-xp 0 08:01 1 /a\n", &m), ==, -EINVAL);
        CHECK_INT(proc_maps_parse("00400000-00401000 r-xp 00000000 100000000:01 1 /a\n", &m), ==, -EINVAL);
        CHECK_INT(proc_maps_parse("00400000-00401000 r-xp -1 08:01 1 /a\n", &m), ==, -EINVAL);
        CHECK_INT(proc_maps_parse("00400000-00401000 r-x\n", &m), ==, -EINVAL);
        /* Lines beyond the first room (16, 32, …), the last without its newline, blanks kept. */
        {
                _cleanup_free_ char *text = NULL;
                size_t size = 0;
                FILE *f = open_memstream(&text, &size);
                CHECK(f);
                for (unsigned i = 0; i < 40; i++)
                        fprintf(f, "%x000-%x000 r--p %08x fd:0%u %u%s%s", 0x100 + 2 * i, 0x101 + 2 * i, i * 0x1000, i % 8,
                                1000 + i, i % 2 ? "                    /lib/l ib.so" : "", i < 39 ? "\n" : "");
                CHECK(fclose(f) == 0);
                CHECK_OK(proc_maps_parse(text, &m));
                CHECK_INT(m.n, ==, 40);
                CHECK_INT(m.mappings[39].start, ==, 0x14e000);
                CHECK_INT(m.mappings[39].offset, ==, 39 * 0x1000);
                CHECK_INT(m.mappings[39].dev_major, ==, 0xfd);
                CHECK_INT(m.mappings[39].dev_minor, ==, 7);
                CHECK_INT(m.mappings[39].inode, ==, 1039);
                CHECK_STR(m.mappings[39].path, "/lib/l ib.so");
                CHECK(!m.mappings[38].path);
                CHECK(proc_maps_find(&m, 0x120800) == &m.mappings[16]);
                proc_maps_done(&m);
        }
        /* A crasher names its files: a name that looks like more fields, or like a second line
         * (the kernel writes a newline in a name as \012), stays one opaque path of its line. */
        CHECK_OK(proc_maps_parse("00400000-00401000 r-xp 00000000 08:01 12 /tmp/a 7f0000000000-7f0000001000 rwxp 0 00:00 0 [stack]\n"
                                 "00601000-00602000 rw-p 00001000 08:01 13 /tmp/b\\012ffff-fffff r-xp 0 0:0 1 /x (deleted)\n", &m));
        CHECK_INT(m.n, ==, 2);
        CHECK_STR(m.mappings[0].path, "/tmp/a 7f0000000000-7f0000001000 rwxp 0 00:00 0 [stack]");
        CHECK_STR(m.mappings[1].path, "/tmp/b\\012ffff-fffff r-xp 0 0:0 1 /x (deleted)");
        CHECK(!proc_maps_find(&m, 0x7f0000000800)); /* no mapping the name made up */
        proc_maps_done(&m);

        /* Files on file systems a server answers for are marked; local files and anonymous memory
         * on the same device numbers are not. */
        CHECK_OK(proc_maps_parse("00400000-00401000 r-xp 00000000 08:01 12 /usr/bin/app\n"
                                 "7f0000000000-7f0001000000 rw-p 00000000 00:2f 2 /run/fusestall/stall\n"
                                 "7f0002000000-7f0002001000 r--p 00000000 00:31 9 /mnt/nfs/lib.so\n"
                                 "7f0003000000-7f0003001000 rw-p 00000000 00:2f 0\n", &m));
        CHECK_OK(proc_maps_mark_remote_from(
                "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
                "40 22 0:47 / /run/fusestall rw,nosuid,nodev - fuse fusestall rw,user_id=0,group_id=0\n"
                "41 22 0:49 / /mnt/nfs rw master:7 - nfs4 host:/export rw\n"
                "42 22 0:50 / /mnt/sshfs rw - fuse.sshfs u@h: rw\n", &m));
        CHECK(!m.mappings[0].remote && m.mappings[1].remote && m.mappings[2].remote && !m.mappings[3].remote);
        proc_maps_done(&m);
        CHECK(fstype_is_remote("fuse") && fstype_is_remote("fuse.sshfs") && fstype_is_remote("cifs"));
        CHECK(!fstype_is_remote("ext4") && !fstype_is_remote("tmpfs") && !fstype_is_remote("fusectl"));
        CHECK_INT(proc_maps_mark_remote_from("no separator here\n", &m), ==, -EINVAL);
}

/* The one rule of proc_maps_mark_remote_from(): a file mapping is local only when its device is in
 * the task's mountinfo on a file system type known to be local (and on no other), or is the kernel's
 * own tmpfs; a device in no line (a FUSE mount lazily detached after the file was mapped, another
 * namespace's mount reached through an fd), overlay and any unknown type are remote. */
TEST(remote_unless_provably_local) {
        struct proc_maps m;
        const char *mountinfo =
                "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
                "23 22 0:26 / /tmp rw - tmpfs tmpfs rw\n"
                "24 22 0:55 / /var/lib/ct/merged rw - overlay overlay rw,lowerdir=/l:/m,upperdir=/u,workdir=/w\n"
                "25 22 0:56 / /mnt/odd rw - weirdfs none rw\n"
                "26 22 0:57 / /srv/a rw - xfs /dev/sdb1 rw\n"
                "27 22 0:57 / /srv/b rw - fuse.sshfs u@h: rw\n"
                "28 22 0:58 / /mnt/squash ro - squashfs /dev/loop0 ro\n";

        CHECK_OK(proc_maps_parse("00400000-00401000 r-xp 00000000 08:01 12 /usr/bin/app\n"
                                 "7f0000000000-7f0000010000 rw-p 00010000 00:30 2 /tmp/fuse/stall\n"  /* 0:48: no line */
                                 "7f0000010000-7f0000011000 r--p 00000000 00:1a 5 /tmp/scratch\n"     /* 0:26 tmpfs */
                                 "7f0000011000-7f0000012000 r--p 00000000 00:37 6 /var/lib/ct/merged/x\n" /* 0:55 overlay */
                                 "7f0000012000-7f0000013000 r--p 00000000 00:38 7 /mnt/odd/y\n"      /* 0:56 unknown type */
                                 "7f0000013000-7f0000014000 r--p 00000000 00:39 8 /srv/a/z\n"        /* 0:57 xfs and FUSE */
                                 "7f0000014000-7f0000015000 r-xp 00000000 00:3a 9 /mnt/squash/lib.so\n" /* 0:58 */
                                 "7f0000015000-7f0000016000 rw-p 00000000 00:30 0 \n"                /* anonymous */
                                 "7ffd0000-7ffd2000 rw-p 00000000 00:00 0 [stack]\n", &m));
        CHECK_OK(proc_maps_mark_remote_from(mountinfo, &m));
        CHECK(!m.mappings[0].remote);   /* ext4 */
        CHECK(m.mappings[1].remote);    /* its device is in no line: detached, or another namespace's */
        CHECK(!m.mappings[2].remote);   /* tmpfs */
        CHECK(m.mappings[3].remote);    /* overlay: its layers may be a user's */
        CHECK(m.mappings[4].remote);    /* a type not known to be local */
        CHECK(m.mappings[5].remote);    /* one device, a local and a remote line: remote */
        CHECK(!m.mappings[6].remote);   /* squashfs */
        CHECK(!m.mappings[7].remote && !m.mappings[8].remote); /* not files */
        /* Marked again from a mountinfo without the ext4 line: the rule sets, never only adds. */
        CHECK_OK(proc_maps_mark_remote_from("23 22 0:26 / /tmp rw - tmpfs tmpfs rw\n", &m));
        CHECK(m.mappings[0].remote && !m.mappings[2].remote);
        /* No mountinfo (or a malformed one): every file is remote. */
        proc_maps_mark(NULL, &m);
        CHECK(m.mappings[0].remote && m.mappings[2].remote && m.mappings[6].remote && !m.mappings[8].remote);
        proc_maps_mark("garbage\n", &m);
        CHECK(m.mappings[0].remote && m.mappings[2].remote && !m.mappings[7].remote);
        /* A chrooted task's mountinfo lists only the mounts under its root (often none): our own
         * lines (the host's) prove a device local too, and a remote line in either makes it remote. */
        CHECK_OK(proc_maps_mark_from("", "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                                         "30 22 0:48 / /home/u/fuse rw - fuse.sshfs u@h: rw\n", &m));
        CHECK(!m.mappings[0].remote && m.mappings[1].remote && m.mappings[2].remote);
        CHECK_OK(proc_maps_mark_from("23 22 0:26 / /tmp rw - tmpfs tmpfs rw\n",
                                     "31 22 0:26 / /x rw - fuse x rw\n", &m));
        CHECK(m.mappings[2].remote);
        CHECK_INT(proc_maps_mark_from(mountinfo, "garbage\n", &m), ==, -EINVAL);
        proc_maps_done(&m);

        /* The kernel's own tmpfs (memfd, SysV shm, shared anonymous memory) is in no mountinfo, yet
         * local: its device is learned from a memfd of our own. */
        int fd = memfd_create("test-shm", MFD_CLOEXEC);
        struct stat st;
        CHECK(fd >= 0 && fstat(fd, &st) == 0);
        close(fd);
        char maps[512];
        snprintf(maps, sizeof maps,
                 "7f0000000000-7f0000001000 rw-s 00000000 %02x:%02x 77 /dev/zero (deleted)\n"
                 "7f0000001000-7f0000002000 rw-s 00000000 %02x:%02x 78 /memfd:x (deleted)\n"
                 "7f0000002000-7f0000003000 rw-s 00000000 %02x:%02x 79 /dev/zero (deleted)\n",
                 major(st.st_dev), minor(st.st_dev), major(st.st_dev), minor(st.st_dev), major(st.st_dev),
                 minor(st.st_dev) + 1);
        CHECK_OK(proc_maps_parse(maps, &m));
        CHECK_OK(proc_maps_mark_from(mountinfo, NULL, &m));
        CHECK(m.mappings[0].remote);    /* not yet learned */
        proc_maps_prepare();
        CHECK_OK(proc_maps_mark_from(mountinfo, NULL, &m));
        CHECK(!m.mappings[0].remote && !m.mappings[1].remote);
        CHECK(m.mappings[2].remote);    /* a name proves nothing: another device */
        proc_maps_done(&m);

        CHECK(fstype_is_local("ext4") && fstype_is_local("tmpfs") && fstype_is_local("rootfs") &&
              fstype_is_local("btrfs") && fstype_is_local("vfat"));
        CHECK(fstype_is_remote("overlay") && fstype_is_remote("fuse") && fstype_is_remote("fuseblk") &&
              fstype_is_remote("fuse.sshfs") && fstype_is_remote("virtiofs") && fstype_is_remote("nfs4") &&
              fstype_is_remote("9p") && fstype_is_remote("ext4x") && fstype_is_remote(""));
}

/* vma_dump_size() of fs/coredump.c, row by row: the facts of a mapping, the filter, the answer. */
TEST(dump_extent_mirrors_vma_dump_size) {
        const uint32_t dflt = 0x33, all = DUMP_FILTER_MASK;
        const struct dump_facts anon = { .known = true, .read = true, .anon_pages = true },
                                anon_untouched = { .known = true, .read = true },
                                text = { .known = true, .read = true, .file = true, .offset_zero = true },
                                text_later = { .known = true, .read = true, .file = true },
                                data = { .known = true, .read = true, .file = true, .anon_pages = true },
                                shm_anon = { .known = true, .read = true, .shared = true, .file = true, .unlinked = true },
                                shm_file = { .known = true, .read = true, .shared = true, .file = true },
                                vdso = { .known = true, .read = true, .special = true };

        /* anonymous private: written to → whole with bit 0; never written (no anon_vma) → nothing */
        CHECK_INT(dump_extent_of(&anon, dflt), ==, DUMP_WHOLE);
        CHECK_INT(dump_extent_of(&anon, all & ~DUMP_FILTER_ANON_PRIVATE), ==, DUMP_NOTHING);
        CHECK_INT(dump_extent_of(&anon_untouched, all), ==, DUMP_NOTHING);
        /* file private, not written: bit 2 whole, else the ELF header page (bit 4, offset 0, readable) */
        CHECK_INT(dump_extent_of(&text, dflt), ==, DUMP_ELF_HEADER);
        CHECK_INT(dump_extent_of(&text, dflt & ~DUMP_FILTER_ELF_HEADERS), ==, DUMP_NOTHING);
        CHECK_INT(dump_extent_of(&text, DUMP_FILTER_MAPPED_PRIVATE), ==, DUMP_WHOLE);
        CHECK_INT(dump_extent_of(&text_later, dflt), ==, DUMP_NOTHING);
        struct dump_facts text_unreadable = text;
        text_unreadable.read = false;
        CHECK_INT(dump_extent_of(&text_unreadable, dflt), ==, DUMP_NOTHING);
        /* file private written to (.data, relro): anonymous private's bit */
        CHECK_INT(dump_extent_of(&data, DUMP_FILTER_ANON_PRIVATE), ==, DUMP_WHOLE);
        CHECK_INT(dump_extent_of(&data, DUMP_FILTER_MAPPED_PRIVATE), ==, DUMP_WHOLE);
        CHECK_INT(dump_extent_of(&data, DUMP_FILTER_ELF_HEADERS), ==, DUMP_NOTHING);
        /* shared: an unlinked file (shmem, memfd, SysV) by bit 1, a linked one by bit 3 */
        CHECK_INT(dump_extent_of(&shm_anon, dflt), ==, DUMP_WHOLE);
        CHECK_INT(dump_extent_of(&shm_anon, all & ~DUMP_FILTER_ANON_SHARED), ==, DUMP_NOTHING);
        CHECK_INT(dump_extent_of(&shm_file, dflt), ==, DUMP_NOTHING);
        CHECK_INT(dump_extent_of(&shm_file, DUMP_FILTER_MAPPED_SHARED), ==, DUMP_WHOLE);
        /* MAP_SHARED of a read-only file is not VM_SHARED: private, with no anon_vma */
        struct dump_facts shm_ro = shm_file;
        shm_ro.shared = false;
        CHECK_INT(dump_extent_of(&shm_ro, DUMP_FILTER_MAPPED_SHARED | DUMP_FILTER_ANON_PRIVATE), ==, DUMP_NOTHING);
        CHECK_INT(dump_extent_of(&shm_ro, DUMP_FILTER_MAPPED_PRIVATE), ==, DUMP_WHOLE);
        /* VM_DONTDUMP: nothing, whatever the filter */
        struct dump_facts dd = anon;
        dd.dontdump = true;
        CHECK_INT(dump_extent_of(&dd, all), ==, DUMP_NOTHING);
        dd = shm_anon;
        dd.dontdump = true;
        CHECK_INT(dump_extent_of(&dd, all), ==, DUMP_NOTHING);
        /* VM_IO: nothing */
        struct dump_facts io = anon;
        io.io = true;
        CHECK_INT(dump_extent_of(&io, all), ==, DUMP_NOTHING);
        io = shm_file;
        io.io = true;
        CHECK_INT(dump_extent_of(&io, all), ==, DUMP_NOTHING);
        /* hugetlb: bits 5 and 6 only, before VM_IO and the others */
        struct dump_facts huge = anon;
        huge.hugetlb = true;
        CHECK_INT(dump_extent_of(&huge, DUMP_FILTER_HUGETLB_PRIVATE), ==, DUMP_WHOLE);
        CHECK_INT(dump_extent_of(&huge, all & ~DUMP_FILTER_HUGETLB_PRIVATE), ==, DUMP_NOTHING);
        huge.shared = huge.file = true;
        CHECK_INT(dump_extent_of(&huge, DUMP_FILTER_HUGETLB_SHARED), ==, DUMP_WHOLE);
        CHECK_INT(dump_extent_of(&huge, all & ~DUMP_FILTER_HUGETLB_SHARED), ==, DUMP_NOTHING);
        huge.dontdump = true;
        CHECK_INT(dump_extent_of(&huge, all), ==, DUMP_NOTHING);
        /* DAX: bits 7 and 8 only; maybe DAX: the smaller answer */
        struct dump_facts dax = text;
        dax.dax = TRI_YES;
        CHECK_INT(dump_extent_of(&dax, DUMP_FILTER_DAX_PRIVATE), ==, DUMP_WHOLE);
        CHECK_INT(dump_extent_of(&dax, all & ~DUMP_FILTER_DAX_PRIVATE), ==, DUMP_NOTHING);
        dax.shared = true;
        CHECK_INT(dump_extent_of(&dax, DUMP_FILTER_DAX_SHARED), ==, DUMP_WHOLE);
        CHECK_INT(dump_extent_of(&dax, DUMP_FILTER_MAPPED_SHARED), ==, DUMP_NOTHING);
        dax.dax = TRI_MAYBE;
        CHECK_INT(dump_extent_of(&dax, DUMP_FILTER_MAPPED_SHARED), ==, DUMP_NOTHING);
        CHECK_INT(dump_extent_of(&dax, DUMP_FILTER_DAX_SHARED), ==, DUMP_NOTHING);
        CHECK_INT(dump_extent_of(&dax, DUMP_FILTER_MAPPED_SHARED | DUMP_FILTER_DAX_SHARED), ==, DUMP_WHOLE);
        /* special mappings: always, even with VM_DONTDUMP and VM_IO ([vvar]) and no filter */
        CHECK_INT(dump_extent_of(&vdso, 0), ==, DUMP_WHOLE);
        struct dump_facts vvar = vdso;
        vvar.dontdump = vvar.io = true;
        CHECK_INT(dump_extent_of(&vvar, 0), ==, DUMP_WHOLE);
        /* smaps did not name it: nothing */
        struct dump_facts unknown = anon;
        unknown.known = false;
        CHECK_INT(dump_extent_of(&unknown, all), ==, DUMP_NOTHING);

        uint32_t f;
        CHECK_OK(parse_coredump_filter("00000033\n", &f));
        CHECK_INT(f, ==, 0x33);
        CHECK_OK(parse_coredump_filter("000001ff", &f));
        CHECK_INT(f, ==, 0x1ff);
        CHECK_INT(parse_coredump_filter("", &f), ==, -EINVAL);
        CHECK_INT(parse_coredump_filter("-1\n", &f), ==, -EINVAL);
        CHECK_INT(parse_coredump_filter("33 junk", &f), ==, -EINVAL);

        /* From maps + smaps + mountinfo to the facts. */
        struct proc_maps m;
        CHECK_OK(proc_maps_parse("00400000-00401000 r-xp 00000000 08:01 12 /usr/bin/app\n"
                                 "00601000-00602000 rw-p 00001000 08:01 12 /usr/bin/app\n"
                                 "7f0000000000-7f0000010000 rw-p 00000000 00:00 0 \n"
                                 "7f0000010000-7f0000020000 rw-s 00000000 00:01 77 /dev/zero (deleted)\n"
                                 "7f0000020000-7f0000030000 rw-s 00000000 00:30 5 /mnt/pmem/f\n"
                                 "7ffe0000-7ffe2000 r-xp 00000000 00:00 0 [vdso]\n"
                                 "7ffd0000-7ffd2000 rw-p 00000000 00:00 0 [stack]\n", &m));
        CHECK_OK(proc_maps_mark_remote_from("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                                            "23 22 0:50 / /mnt/pmem rw - ext4 /dev/pmem0 rw,dax=always\n", &m));
        /* the mount's device is 0:50 (decimal); the mapping's 00:30 (hex) is 0:48: no DAX */
        CHECK_INT(m.mappings[4].dax, ==, TRI_NO);
        CHECK_OK(proc_smaps_annotate("00400000-00401000 r-xp 00000000 08:01 12 /usr/bin/app\n"
                                     "Size:                  4 kB\n"
                                     "Anonymous:             0 kB\n"
                                     "Swap:                  0 kB\n"
                                     "VmFlags: rd ex mr mw me dw \n"
                                     "00601000-00602000 rw-p 00001000 08:01 12 /usr/bin/app\n"
                                     "Anonymous:             4 kB\n"
                                     "VmFlags: rd wr mr mw me ac \n"
                                     "7f0000000000-7f0000010000 rw-p 00000000 00:00 0 \n"
                                     "Anonymous:             0 kB\n"
                                     "Swap:                  8 kB\n"
                                     "VmFlags: rd wr mr mw me ac dd \n"
                                     "7f0000010000-7f0000020000 rw-s 00000000 00:01 77 /dev/zero (deleted)\n"
                                     "VmFlags: rd wr sh mr mw me ms \n"
                                     "7f0000020000-7f0000030000 rw-s 00000000 00:30 5 /mnt/pmem/f\n"
                                     "VmFlags: rd wr mr mw me ms \n"
                                     "7ffe0000-7ffe2000 r-xp 00000000 00:00 0 [vdso]\n"
                                     "VmFlags: rd ex mr mw me de \n"
                                     "12340000-12350000 rw-p 00000000 00:00 0 \n"
                                     "VmFlags: rd wr io \n", &m));
        struct dump_facts got;
        dump_facts_of(&m.mappings[0], &got);
        CHECK(got.known && got.read && got.file && got.offset_zero && !got.anon_pages && !got.shared);
        CHECK_INT(dump_extent_of(&got, dflt), ==, DUMP_ELF_HEADER);
        dump_facts_of(&m.mappings[1], &got);
        CHECK(got.anon_pages && !got.offset_zero);
        CHECK_INT(dump_extent_of(&got, dflt), ==, DUMP_WHOLE);
        dump_facts_of(&m.mappings[2], &got);
        CHECK(got.dontdump && got.anon_pages && !got.file);
        CHECK_INT(dump_extent_of(&got, all), ==, DUMP_NOTHING);
        dump_facts_of(&m.mappings[3], &got);
        CHECK(got.shared && got.unlinked && got.file);
        CHECK_INT(dump_extent_of(&got, DUMP_FILTER_ANON_SHARED), ==, DUMP_WHOLE);
        dump_facts_of(&m.mappings[4], &got);
        CHECK(!got.shared && !got.unlinked);    /* maps says 's', VmFlags no "sh": opened read-only */
        CHECK_INT(dump_extent_of(&got, DUMP_FILTER_MAPPED_SHARED), ==, DUMP_NOTHING);
        dump_facts_of(&m.mappings[5], &got);
        CHECK(got.special);
        dump_facts_of(&m.mappings[6], &got);
        CHECK(!got.known && !got.special);      /* smaps had no block for it */
        CHECK_INT(dump_extent_of(&got, all), ==, DUMP_NOTHING);
        proc_maps_done(&m);

        CHECK_OK(proc_maps_parse("7f0000020000-7f0000030000 rw-s 00000000 00:30 5 /mnt/pmem/f\n"
                                 "7f0000030000-7f0000040000 rw-s 00000000 00:31 5 /mnt/inode/f\n", &m));
        CHECK_OK(proc_maps_mark_remote_from("23 22 0:30 / /mnt/pmem rw - ext4 /dev/pmem0 rw,dax=always\n"
                                            "24 22 0:31 / /mnt/inode rw - xfs /dev/pmem1 rw,dax=inode\n", &m));
        CHECK_INT(m.mappings[0].dax, ==, TRI_NO);       /* 0:30 is 00:1e in maps */
        proc_maps_done(&m);
        CHECK_OK(proc_maps_parse("7f0000020000-7f0000030000 rw-s 00000000 00:30 5 /mnt/pmem/f\n"
                                 "7f0000030000-7f0000040000 rw-s 00000000 00:31 5 /mnt/inode/f\n", &m));
        CHECK_OK(proc_maps_mark_remote_from("23 22 0:48 / /mnt/pmem rw - ext4 /dev/pmem0 rw,dax=always\n"
                                            "24 22 0:49 / /mnt/inode rw - xfs /dev/pmem1 rw,dax=inode\n", &m));
        CHECK_INT(m.mappings[0].dax, ==, TRI_YES);
        CHECK_INT(m.mappings[1].dax, ==, TRI_MAYBE);
        proc_maps_done(&m);

        CHECK_OK(proc_maps_parse("00400000-00401000 r-xp 00000000 08:01 12 /usr/bin/app\n", &m));
        CHECK_INT(proc_smaps_annotate("00400000-00401000 r-xp 00000000 08:01 12 /usr/bin/app\n"
                                      "VmFlags: rd exx\n", &m), ==, -EINVAL);
        CHECK_INT(proc_smaps_annotate("0040zzzz\n", &m), ==, -EINVAL);
        CHECK_INT(proc_smaps_annotate("00400000-00401000 r-xp 00000000 08:01 12 /usr/bin/app\n"
                                      "Anonymous:   lots\n", &m), ==, -EINVAL);
        proc_maps_done(&m);
}

/* A child with memory marked MADV_DONTDUMP, memory it wrote, and a file mapped private and only
 * read: its core (all-writable) never holds the first, holds the second while coredump_filter
 * has bit 0, and the third only while it has bit 2; what is left out is still a PT_LOAD, with
 * p_filesz 0, as the kernel writes it. */
#define DD_SIZE (16U * 4096)
struct dd_child {
        pid_t pid;
        int proc_fd;
        uint64_t secret, written, file;
};

static void dd_fill(volatile uint8_t *p, uint8_t v) {
        for (size_t i = 0; i < DD_SIZE; i++)
                p[i] = v;
}

static bool core_has_byte_run(const char *path, uint8_t v) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        uint8_t buf[65536];
        size_t run = 0;
        ssize_t n;
        CHECK(fd >= 0);
        while ((n = read(fd, buf, sizeof buf)) > 0)
                for (ssize_t i = 0; i < n; i++) {
                        run = buf[i] == v ? run + 1 : 0;
                        if (run >= 4096)
                                return true;
                }
        return false;
}

/* p_filesz and p_memsz of the PT_LOAD that starts at vaddr; false if none does. */
static bool core_segment_at(const char *path, uint64_t vaddr, uint64_t *filesz, uint64_t *memsz) {
        struct core_view v;
        size_t phnum;
        bool found = false;
        core_open(path, &v);
        CHECK(elf_getphdrnum(v.elf, &phnum) == 0);
        for (size_t i = 0; i < phnum; i++) {
                GElf_Phdr ph;
                CHECK(gelf_getphdr(v.elf, (int) i, &ph));
                if (ph.p_type == PT_LOAD && ph.p_vaddr == vaddr) {
                        *filesz = ph.p_filesz;
                        *memsz = ph.p_memsz;
                        found = true;
                }
        }
        core_close(&v);
        return found;
}

TEST(core_honours_dontdump_and_coredump_filter) {
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_free_ char *file = tmp_core(dir, "mapped"), *p1 = tmp_core(dir, "c1"), *p2 = tmp_core(dir, "c2");
        struct dd_child c = { .proc_fd = -1 };
        struct selfdump_result res;
        int status;

        /* The file's bytes: 0xf1, written here, never by the child. */
        {
                _cleanup_close_ int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
                uint8_t page[4096];
                CHECK(fd >= 0);
                memset(page, 0xf1, sizeof page);
                for (unsigned i = 0; i < DD_SIZE / 4096; i++)
                        CHECK_INT(write(fd, page, sizeof page), ==, sizeof page);
                explicit_bzero(page, sizeof page);      /* the child's stack is a copy of ours */
        }
        uint64_t *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        CHECK(shared != MAP_FAILED);
        c.pid = fork();
        CHECK(c.pid >= 0);
        if (c.pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                volatile uint8_t *s = mmap(NULL, DD_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                volatile uint8_t *w = mmap(NULL, DD_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                int fd = open(file, O_RDONLY | O_CLOEXEC);
                volatile uint8_t *f = fd < 0 ? MAP_FAILED
                                             : mmap(NULL, DD_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
                if (s == MAP_FAILED || w == MAP_FAILED || f == MAP_FAILED || madvise((void *) s, DD_SIZE, MADV_DONTDUMP) < 0)
                        _exit(2);
                dd_fill(s, 0xd5);
                dd_fill(w, 0xa7);
                uint8_t sum = 0;
                for (size_t i = 0; i < DD_SIZE; i += 4096)
                        sum += f[i];    /* read, never written: no anonymous page */
                shared[0] = (uintptr_t) s;
                shared[1] = (uintptr_t) w;
                shared[2] = (uintptr_t) f + (sum & 0);
                raise(SIGSTOP);
                _exit(0);
        }
        CHECK_INT(waitpid(c.pid, &status, WUNTRACED), ==, c.pid);
        CHECK(WIFSTOPPED(status));
        c.secret = shared[0];
        c.written = shared[1];
        c.file = shared[2];
        char path[64];
        snprintf(path, sizeof path, "/proc/%d", (int) c.pid);
        c.proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(c.proc_fd >= 0);

        struct child as_child = { .pid = c.pid, .proc_fd = c.proc_fd };
        uint64_t filesz, memsz;

        /* anonymous private, ELF headers, not file private */
        snprintf(path, sizeof path, "/proc/%d/coredump_filter", (int) c.pid);
        FILE *fp = fopen(path, "we");
        CHECK(fp);
        fprintf(fp, "0x13\n");
        CHECK(fclose(fp) == 0);
        write_core(&as_child, USERSPACE_MODE_ALL_WRITABLE, p1, &res);
        CHECK(!core_has_byte_run(p1, 0xd5));
        CHECK(core_has_byte_run(p1, 0xa7));
        CHECK(!core_has_byte_run(p1, 0xf1));
        CHECK(core_segment_at(p1, c.secret, &filesz, &memsz));
        CHECK_INT(filesz, ==, 0);
        CHECK_INT(memsz, ==, DD_SIZE);
        struct core_view v;
        uint8_t b = 0;
        core_open(p1, &v);
        CHECK(core_read(&v, c.written + DD_SIZE - 1, &b, 1));
        CHECK_INT(b, ==, 0xa7);
        CHECK(!core_read(&v, c.secret, &b, 1));
        core_close(&v);
        CHECK(core_segment_at(p1, c.file, &filesz, &memsz));
        CHECK_INT(filesz, ==, 0);
        CHECK_INT(memsz, ==, DD_SIZE);

        /* file private too, anonymous private no more */
        fp = fopen(path, "we");
        CHECK(fp);
        fprintf(fp, "0x14\n");
        CHECK(fclose(fp) == 0);
        write_core(&as_child, USERSPACE_MODE_ALL_WRITABLE, p2, &res);
        CHECK(!core_has_byte_run(p2, 0xd5));
        CHECK(!core_has_byte_run(p2, 0xa7));
        CHECK(core_has_byte_run(p2, 0xf1));
        CHECK(core_segment_at(p2, c.file, &filesz, &memsz));
        CHECK_INT(filesz, ==, DD_SIZE);

        safe_close(c.proc_fd);
        (void) kill(c.pid, SIGKILL);
        (void) waitpid(c.pid, NULL, __WALL);
        munmap(shared, 4096);
        tmpdir_remove(dir);
}

static bool rule_matches(const char *rule_text, struct crash_context *ctx) {
        struct policy *p = policy_new();
        CHECK(p);
        FILE *f = fmemopen((void *) rule_text, strlen(rule_text), "r");
        CHECK(f);
        CHECK_OK(policy_parse_file(p, f, "test.conf"));
        fclose(f);
        bool r = policy_rule_matches(&p->rules[0], ctx);
        policy_unref(p);
        return r;
}

TEST(policy_si_code_fault_address_userspace_dump) {
        struct crash_context null_deref = {
                .signal = SIGSEGV, .si_code_known = true, .si_code = 1,
                .fault_addr_known = true, .fault_addr = 0x10, .null_page_end = 65536,
        };
        struct crash_context wild = null_deref;
        wild.fault_addr = 0x7f0012345678;
        struct crash_context kernel_addr = null_deref;
        kernel_addr.fault_addr = 0xffffffff81000000;
        struct crash_context abort_ = { .signal = SIGABRT, .si_code_known = true, .si_code = -6, .null_page_end = 4096 };
        struct crash_context no_probe = { .signal = SIGSEGV, .si_code_known = true, .si_code = 1 };

        const char *null_rule = "[Rule]\nMatchFaultAddress=null\nAction=reject\n";
        CHECK(rule_matches(null_rule, &null_deref));
        CHECK(!rule_matches(null_rule, &wild));
        CHECK(!rule_matches(null_rule, &abort_));
        CHECK(!rule_matches(null_rule, &no_probe));
        /* mmap_min_addr moves the NULL page's end. */
        wild.fault_addr = 0x8000;
        CHECK(rule_matches(null_rule, &wild));
        wild.null_page_end = 4096;
        CHECK(!rule_matches(null_rule, &wild));
        CHECK(rule_matches("[Rule]\nMatchFaultAddress=user\nAction=reject\n", &wild));
        CHECK(rule_matches("[Rule]\nMatchFaultAddress=kernel\nAction=reject\n", &kernel_addr));
        CHECK(!rule_matches("[Rule]\nMatchFaultAddress=kernel user\nAction=reject\n", &null_deref));
        CHECK(rule_matches("[Rule]\nMatchFaultAddress=0x1000-0x8fff\nAction=reject\n", &wild));
        CHECK(rule_matches("[Rule]\nMatchFaultAddress=0x8000\nAction=reject\n", &wild));
        CHECK(!rule_matches("[Rule]\nMatchFaultAddress=0x8001-0x9000\nAction=reject\n", &wild));

        CHECK(rule_matches("[Rule]\nMatchSiCode=SEGV_MAPERR\nAction=reject\n", &null_deref));
        CHECK(!rule_matches("[Rule]\nMatchSiCode=SEGV_ACCERR\nAction=reject\n", &null_deref));
        CHECK(!rule_matches("[Rule]\nMatchSiCode=BUS_ADRALN\nAction=reject\n", &null_deref)); /* also 1, other signal */
        CHECK(rule_matches("[Rule]\nMatchSiCode=1\nAction=reject\n", &null_deref));
        CHECK(rule_matches("[Rule]\nMatchSiCode=SI_TKILL\nAction=reject\n", &abort_));
        CHECK(rule_matches("[Rule]\nMatchSiCode=-6 SEGV_MAPERR\nAction=reject\n", &abort_));

        /* Parsing errors, printing, and the UserspaceDump= decision. */
        struct policy *p = policy_new();
        const char *bad[] = {
                "[Rule]\nMatchSiCode=SEGV_NOPE\nAction=reject\n",
                "[Rule]\nMatchFaultAddress=nowhere\nAction=reject\n",
                "[Rule]\nMatchFaultAddress=0x2000-0x1000\nAction=reject\n",
                "[Rule]\nUserspaceDump=everything\nAction=userspace\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                FILE *f = fmemopen((void *) bad[i], strlen(bad[i]), "r");
                CHECK_INT(policy_parse_file(p, f, "bad.conf"), ==, 1);
                fclose(f);
        }
        CHECK_INT(p->n_rules, ==, 0); /* each left out */
        policy_unref(p);

        const char *good = "[Rule]\nName=r\nMatchSiCode=SEGV_MAPERR -6\nMatchFaultAddress=null 0x1000-0x1fff 0x42\n"
                           "Action=userspace\nUserspaceDump=stacks+heap-refs\n";
        p = policy_new();
        FILE *f = fmemopen((void *) good, strlen(good), "r");
        CHECK_OK(policy_parse_file(p, f, "good.conf"));
        fclose(f);
        char *printed = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&printed, &size);
        policy_print(p, out);
        fclose(out);
        CHECK(strstr(printed, "MatchSiCode=SEGV_MAPERR SI_TKILL\n"));
        CHECK(strstr(printed, "MatchFaultAddress=null 0x1000-0x1fff 0x42\n"));
        CHECK(strstr(printed, "UserspaceDump=stacks+heap-refs\n"));
        free(printed);

        struct config config;
        config_init_defaults(&config);
        struct decision d;
        CHECK_OK(policy_decide(p, &config, &null_deref, &d));
        CHECK_INT(d.action, ==, ACTION_USERSPACE);
        CHECK_INT(d.userspace_mode, ==, USERSPACE_MODE_STACKS_HEAP_REFS);
        decision_done(&d);
        policy_unref(p);
        config_done(&config);
}

/* A core writer blocked where nothing wakes it is ended for certain by the deadline: the writer
 * runs in a child process that is SIGKILLed, and nothing is stored. */
static atomic_bool killable_cancel;

static int block_forever(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason,
                         size_t reason_size) {
        for (;;)
                pause();
        return 0;
}

static int killable_generate(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason,
                             size_t reason_size) {
        return store_generate_killable(w, NULL, block_forever, NULL, &killable_cancel, NULL, 0, ret_truncated, reason,
                                       reason_size);
}

static void *cancel_later(void *userdata) {
        usleep(300000);
        atomic_store(&killable_cancel, true);
        return NULL;
}

/* The core writer's process holds no socket: not the listening one, not another crash's
 * connection (that task would stay held while the writer runs). */
static int sockets_closed(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason,
                          size_t reason_size) {
        int fd = *(int *) userdata;
        if (fcntl(fd, F_GETFD) >= 0) {
                snprintf(reason, reason_size, "socket %d still open in the writer", fd);
                return -EEXIST;
        }
        return 0;
}

TEST(core_writer_holds_no_socket) {
        int sv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
        int fd = memfd_create("core", MFD_CLOEXEC);
        CHECK(fd >= 0);
        struct core_writer w;
        CHECK_OK(core_writer_init(&w, fd, COMPRESSION_NONE, 0));
        char reason[128] = "";
        bool truncated = false;
        int r = store_generate_killable(&w, NULL, sockets_closed, &sv[0], NULL, NULL, 0, &truncated, reason, sizeof reason);
        if (r < 0)
                test_fail(__FILE__, __LINE__, "%s", reason);
        CHECK(fcntl(sv[0], F_GETFD) >= 0); /* ours stay open */
        core_writer_done(&w);
        close(fd);
        close(sv[0]);
        close(sv[1]);
}

/* The writer starts with nothing of the daemon's: of what this process holds (a pipe, an unnamed
 * file, a socket: another crash's connection or core in flight), only the fds it is handed stay. */
struct writer_fds {
        int n;
        int fds[64];
};

static int list_fds(struct core_writer *w, void *userdata, bool *ret_truncated, char *reason, size_t reason_size) {
        struct writer_fds *seen = userdata;
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;

        if (!d)
                return -errno;
        seen->n = 0;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d) && seen->n < 64)
                        seen->fds[seen->n++] = atoi(de->d_name);
        closedir(d);
        return 0;
}

static bool fd_listed(const struct writer_fds *f, int fd) {
        for (int i = 0; i < f->n; i++)
                if (f->fds[i] == fd)
                        return true;
        return false;
}

static void check_writer_fds(void) {
        int pipe_fds[2], sv[2];
        CHECK(pipe(pipe_fds) == 0);
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        int tmpfile = open("/tmp", O_TMPFILE | O_RDWR, 0600);
        CHECK(tmpfile >= 0);
        int kept = memfd_create("kept", MFD_CLOEXEC);
        CHECK(kept >= 0);
        int core = memfd_create("core", MFD_CLOEXEC);
        CHECK(core >= 0);
        struct core_writer w;
        CHECK_OK(core_writer_init(&w, core, COMPRESSION_NONE, 0));
        struct writer_fds seen = {};
        struct writer_start start = { .keep_fds = &kept, .n_keep_fds = 1 };
        char reason[128] = "";
        bool truncated = false;

        int r = store_generate_killable(&w, &start, list_fds, &seen, NULL, &seen, sizeof seen, &truncated, reason,
                                        sizeof reason);
        if (r < 0)
                test_fail(__FILE__, __LINE__, "%s", reason);
        for (int i = 0; i < seen.n; i++)
                printf("writer fd %d\n", seen.fds[i]);
        CHECK(fd_listed(&seen, core));
        CHECK(fd_listed(&seen, kept));
        CHECK(!fd_listed(&seen, pipe_fds[0]) && !fd_listed(&seen, pipe_fds[1]));
        CHECK(!fd_listed(&seen, tmpfile));
        CHECK(!fd_listed(&seen, sv[0]) && !fd_listed(&seen, sv[1]));
        /* Nothing but the three, the core's and the one handed over. */
        for (int i = 0; i < seen.n; i++)
                CHECK(seen.fds[i] <= STDERR_FILENO || seen.fds[i] == core || seen.fds[i] == kept);
        CHECK(fcntl(tmpfile, F_GETFD) >= 0 && fcntl(pipe_fds[0], F_GETFD) >= 0); /* ours stay open */
        core_writer_done(&w);
        close(core);
        close(kept);
        close(tmpfile);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        close(sv[0]);
        close(sv[1]);
}

TEST(core_writer_keeps_only_its_own_fds) {
        check_writer_fds();
}

/* The same without close_range() (a kernel before 5.9, here a system call filter that answers
 * ENOSYS): the writer closes what /proc/self/fd lists. */
TEST(core_writer_keeps_only_its_own_fds_without_close_range) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                struct sock_filter filter[] = {
                        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close_range, 0, 1),
                        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
                        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                };
                struct sock_fprog prog = { .len = ELEMENTSOF(filter), .filter = filter };
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
                        _exit(10);
                if (syscall(SYS_close_range, 1000, 1001, 0) == 0 || errno != ENOSYS)
                        _exit(11);
                check_writer_fds();
                _exit(0);
        }
        int status;
        CHECK_INT(waitpid(pid, &status, 0), ==, pid);
        CHECK(WIFEXITED(status));
        CHECK_INT(WEXITSTATUS(status), ==, 0);
}

/* read() as the code in this binary calls it, passed on: at the first read of the held task's
 * /proc/<pid>/maps, who reads it is noted (in memory shared with the writer's process) — its ids,
 * capabilities, dumpable and no_new_privs, and whether the markers this process holds are open. */
struct first_maps_read {
        pid_t held;
        bool armed, seen;
        pid_t pid;
        uid_t ruid, euid;
        gid_t egid;
        uint32_t cap_effective, cap_permitted;
        int dumpable, no_new_privs;
        int marker_fd[2];
        ino_t marker_ino[2];
        bool marker_open[2];
};
static struct first_maps_read *first_maps_read;

ssize_t read(int fd, void *buf, size_t size) {
        struct first_maps_read *f = first_maps_read;

        if (f && f->armed && !f->seen) {
                char self[64], link[64] = "", want[64];
                snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
                snprintf(want, sizeof want, "/proc/%d/maps", (int) f->held);
                ssize_t n = readlink(self, link, sizeof link - 1);
                if (n > 0 && (link[n] = 0, strcmp(link, want) == 0)) {
                        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
                        struct __user_cap_data_struct caps[2] = {};
                        (void) syscall(SYS_capget, &h, caps);
                        f->pid = getpid();
                        f->ruid = getuid();
                        f->euid = geteuid();
                        f->egid = getegid();
                        f->cap_effective = caps[0].effective | caps[1].effective;
                        f->cap_permitted = caps[0].permitted | caps[1].permitted;
                        f->dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
                        f->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
                        for (int i = 0; i < 2; i++) {
                                struct stat st;
                                f->marker_open[i] = fstat(f->marker_fd[i], &st) == 0 && st.st_ino == f->marker_ino[i];
                        }
                        f->seen = true;
                }
        }
        return (ssize_t) syscall(SYS_read, fd, buf, size);
}

/* The daemon's way (crash/userspace.c): the writer, a process of its own, is the crashing user (here
 * an id of its own from the cells' range, shared/cell-ids.h: the task is root's; nobody's before,
 * which every nobody service shares), given back when it is reaped, without any capability, not dumpable, with no_new_privs, and holds
 * none of this process's files before it reads the first byte of the task's maps; the core is whole. */
TEST(writer_drops_everything_before_reading_the_task) {
        struct child c;
        struct selfdump_result res = {};
        _cleanup_free_ char *dir = tmpdir_new();
        _cleanup_free_ char *path = tmp_core(dir, "core");
        struct stat st;
        int pipe_fds[2];

        if (geteuid() != 0) {
                printf("SKIP: needs root to change ids\n");
                exit(77);
        }
        first_maps_read = mmap(NULL, sizeof *first_maps_read, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        CHECK(first_maps_read != MAP_FAILED);
        child_start(&c, 1);
        CHECK(pipe(pipe_fds) == 0);
        int tmpfile = open(dir, O_TMPFILE | O_RDWR, 0600); /* another crash's core in flight */
        CHECK(tmpfile >= 0);
        *first_maps_read = (struct first_maps_read) { .held = c.pid, .marker_fd = { pipe_fds[0], tmpfile } };
        CHECK(fstat(pipe_fds[0], &st) == 0);
        first_maps_read->marker_ino[0] = st.st_ino;
        CHECK(fstat(tmpfile, &st) == 0);
        first_maps_read->marker_ino[1] = st.st_ino;

        struct selfdump_request req = {
                .proc_fd = c.proc_fd,
                .pid = c.pid,
                .mode = USERSPACE_MODE_STACKS,
                .signal = { .signo = SIGSEGV },
                .crash_tid = c.pid,
                .run_uid = CELL_IDS_ANY,
                .run_gid = CELL_IDS_ANY,
        };
        char why[512];
        if (cell_ids_init_range("", 2147287040, 16, why, sizeof why) < 0)
                test_fail(__FILE__, __LINE__, "cell_ids_init_range: %s", why);
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        struct core_writer w;
        char error[256] = "";
        CHECK_OK(core_writer_init(&w, fd, COMPRESSION_NONE, 0));
        first_maps_read->armed = true;
        int r = selfdump_write_killable(&req, &w, NULL, &res, error, sizeof error);
        first_maps_read->armed = false;
        if (r < 0)
                test_fail(__FILE__, __LINE__, "selfdump_write_killable: %s", error);
        CHECK_OK(core_writer_finish(&w));
        core_writer_done(&w);

        struct first_maps_read *f = first_maps_read;
        printf("first read of maps: pid %d (we are %d), uid %u/%u gid %u, caps %#x/%#x, dumpable %d, "
               "no_new_privs %d, pipe %s, tmpfile %s\n",
               (int) f->pid, (int) getpid(), (unsigned) f->ruid, (unsigned) f->euid, (unsigned) f->egid,
               f->cap_effective, f->cap_permitted, f->dumpable, f->no_new_privs,
               f->marker_open[0] ? "open" : "closed", f->marker_open[1] ? "open" : "closed");
        CHECK(f->seen);
        CHECK(f->pid != getpid());
        CHECK(f->ruid >= 2147287040 && f->ruid < 2147287040 + 16);
        CHECK_INT(f->euid, ==, f->ruid);
        CHECK_INT(f->egid, ==, f->ruid);
        CHECK_INT(cell_ids_held(), ==, 0);
        CHECK_OK(cell_ids_init_range("", 0, 0, why, sizeof why));
        CHECK_INT(f->cap_effective, ==, 0);
        CHECK_INT(f->cap_permitted, ==, 0);
        CHECK_INT(f->dumpable, ==, 0);
        CHECK_INT(f->no_new_privs, ==, 1);
        CHECK(!f->marker_open[0]);
        CHECK(!f->marker_open[1]);
        CHECK_INT(res.n_threads, ==, 2);
        CHECK(res.memory_bytes > 0);

        struct core_view v;
        core_open(path, &v);
        CHECK_INT(v.n_prstatus, ==, 2);
        core_close(&v);
        first_maps_read = NULL;
        munmap(f, sizeof *f);
        close(tmpfile);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        child_stop(&c);
        tmpdir_remove(dir);
}

TEST(blocked_core_writer_killed_at_deadline) {
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        struct fields metadata = {};
        struct store_target t = {
                .name = "core.blocked.0.0123456789abcdef0123456789abcdef.1.1",
                .metadata = &metadata,
                .reader_uid = STORE_NO_READER,
                .max_size = UINT64_MAX,
                .compress = COMPRESSION_NONE,
                .tag = "test",
        };
        struct stored_core stored = {};
        char reason[256] = "";
        pthread_t thread;

        atomic_store(&killable_cancel, false);
        CHECK(pthread_create(&thread, NULL, cancel_later, NULL) == 0);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_INT(store_core_generated(e.store, &t, killable_generate, NULL, &stored, reason, sizeof reason), ==,
                  -ETIMEDOUT);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK(pthread_join(thread, NULL) == 0);
        long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        CHECK_INT(ms, >=, 250);
        CHECK_INT(ms, <, 2000);
        CHECK(strstr(reason, "killed"));
        CHECK_INT(test_env_count_cores(&e, NULL), ==, 0);
        test_env_done(&e);
}

/* The held task's stack unwound by the parser (coredumpd-parser, as nobody: the sleeper is root's)
 * with libdwfl: a sleeper in pause() unwinds through libc into this binary's sleeper_start(), with
 * build-ids and module offsets. */
static int unwind_sleeper(int proc_fd, pid_t pid, const struct parser_thread *t, uint64_t budget_usec,
                          struct unwind_result *res) {
        char reason[256] = "";
        struct parser_job job = {
                .proc_fd = proc_fd,
                .pid = pid,
                .uid = PARSER_NOBODY,
                .gid = PARSER_NOBODY,
                .threads = t,
                .n_threads = 1,
                .budget_usec = budget_usec,
        };
        char exe[PATH_MAX];
        ssize_t n = readlinkat(proc_fd, "exe", exe, sizeof exe - 1);
        if (n > 0) {
                exe[n] = 0;
                job.exe = exe;
        }
        int r = parser_unwind(&job, res, reason, sizeof reason);
        if (r < 0)
                printf("# parser: %s (%s)\n", reason, strerror(-r));
        return r;
}

static void sleeper_thread(int proc_fd, pid_t pid, struct parser_thread *t) {
        struct proc_threads threads = {};
        CHECK_OK(proc_threads_read(proc_fd, &threads));
        CHECK_INT(threads.n, ==, 1);
        *t = (struct parser_thread) { .tid = pid };
        core_regs_from_sp_pc(t->regs, threads.threads[0].sp, threads.threads[0].pc);
        proc_threads_done(&threads);
}

/* A sleeper named comm, its /proc directory (returned) and its one thread in *t, for parser_job. */
static int sleeper_with_thread(const char *comm, pid_t *ret_pid, struct parser_thread *t) {
        pid_t pid = sleeper_start(comm, -1);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d", (int) pid); /* sleeper_start() waits for pause() */
        int proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(proc_fd >= 0);
        sleeper_thread(proc_fd, pid, t);
        *ret_pid = pid;
        return proc_fd;
}

/* $COREDUMPD_PARSER as it was before a test set a fake parser there (saved: a copy, or NULL). */
static void parser_env_restore(const char *saved) {
        if (saved)
                CHECK(setenv("COREDUMPD_PARSER", saved, 1) == 0);
        else
                unsetenv("COREDUMPD_PARSER");
}

TEST(unwind_sleeper_through_libc_into_caller) {
        pid_t pid;
        struct parser_thread t;
        _cleanup_close_ int proc_fd = sleeper_with_thread("unwound", &pid, &t);

        struct unwind_result res = {};
        CHECK_OK(unwind_sleeper(proc_fd, pid, &t, 5000000, &res));
        CHECK_INT(res.n_threads, ==, 1);
        CHECK_INT(res.threads[0].tid, ==, pid);
        CHECK(res.exe_build_id[0] != 0);
        bool caller = false;
        for (size_t k = 0; k < res.threads[0].n_frames; k++)
                caller = caller || (res.threads[0].frames[k].symbol &&
                                    strcmp(res.threads[0].frames[k].symbol, "sleeper_start") == 0);
        _cleanup_free_ char *text = unwind_thread_format(&res.threads[0]);
        if (!caller)
                test_fail(__FILE__, __LINE__, "no sleeper_start frame in:\n%s", text ? text : "(none)");
        CHECK(res.threads[0].frames[0].build_id[0] != 0);
        CHECK(strstr(text, "#0 "));
        unwind_result_done(&res);

        /* Garbage registers: handled at once, at most the first frame. */
        struct parser_thread bad = { .tid = pid, .crashed = 1 };
        core_regs_from_sp_pc(bad.regs, 0x10, 0x1);
        CHECK_OK(unwind_sleeper(proc_fd, pid, &bad, 5000000, &res));
        CHECK(res.n_threads <= 1 && (res.n_threads == 0 || res.threads[0].n_frames <= 1));
        CHECK_INT(res.usec, <, 2000000);
        unwind_result_done(&res);

        /* No budget: no frames, no waiting. */
        CHECK_OK(unwind_sleeper(proc_fd, pid, &t, 0, &res));
        CHECK(res.n_threads == 0 || res.threads[0].n_frames == 0);
        unwind_result_done(&res);
        sleeper_stop(pid);
}

/* The unwinder reaches a mapped file through /proc/<pid>/map_files, never by the path its maps name:
 * a sleep(1) run from a tmpfs of its own mount namespace, that tmpfs then covered by another (so the
 * path leads to nothing in the task's root, nor in ours: a mount of the crasher's over the way, as a
 * FUSE directory would be), is still found — its build-id is the program's. Before, the file was
 * opened by its path in the task's root and then in ours, and left unnamed here. */
TEST(unwind_reaches_a_file_its_path_no_longer_reaches) {
        _cleanup_free_ char *dir = tmpdir_new();
        char program[PATH_MAX], id[41] = "";
        snprintf(program, sizeof program, "%s/sleep", dir);
        int from = open("/bin/sleep", O_RDONLY | O_CLOEXEC);
        CHECK(from >= 0);
        CHECK_OK(elf_file_build_id(from, id));
        close(from);
        CHECK(id[0] != 0);

        int p[2];
        CHECK(pipe2(p, O_CLOEXEC) == 0);
        pid_t mid = fork();
        CHECK(mid >= 0);
        if (mid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                char cmd[PATH_MAX + 64];
                snprintf(cmd, sizeof cmd, "cp /bin/sleep %s", program);
                if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                    mount("tmpfs", dir, "tmpfs", 0, "size=8m,mode=0755") < 0 || system(cmd) != 0)
                        _exit(1);
                pid_t sleeper = fork();
                if (sleeper == 0) {
                        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                        execl(program, "sleep", "600", (char *) NULL);
                        _exit(1);
                }
                char exe[64], target[PATH_MAX];
                snprintf(exe, sizeof exe, "/proc/%d/exe", (int) sleeper);
                for (int i = 0; i < 500; i++) {
                        ssize_t n = readlink(exe, target, sizeof target - 1);
                        if (n > 0 && (target[n] = 0, strcmp(target, program) == 0))
                                break;
                        usleep(2000);
                }
                if (mount("tmpfs", dir, "tmpfs", 0, "size=1m") < 0)
                        _exit(1);
                if (write(p[1], &sleeper, sizeof sleeper) != sizeof sleeper)
                        _exit(1);
                (void) waitpid(sleeper, NULL, 0);
                _exit(0);
        }
        close(p[1]);
        pid_t pid = 0;
        CHECK(read(p[0], &pid, sizeof pid) == sizeof pid);
        close(p[0]);

        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "/proc/%d/root%s", (int) pid, program);
        CHECK(access(path, F_OK) < 0); /* covered in its root */
        CHECK(access(program, F_OK) < 0); /* and never there in ours */
        snprintf(path, sizeof path, "/proc/%d", (int) pid);
        _cleanup_close_ int proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(proc_fd >= 0);
        /* In nanosleep(), as a crashed task sits in the kernel. */
        snprintf(path, sizeof path, "/proc/%d/syscall", (int) pid);
        for (int i = 0; i < 500; i++) {
                _cleanup_free_ char *text = NULL;
                if (read_file_at(AT_FDCWD, path, 128, &text, NULL, NULL) >= 0 && strncmp(text, "running", 7) != 0)
                        break;
                usleep(2000);
        }
        struct parser_thread t;
        sleeper_thread(proc_fd, pid, &t);
        struct unwind_result res = {};
        CHECK_OK(unwind_sleeper(proc_fd, pid, &t, 5000000, &res));
        bool found = strcmp(res.exe_build_id, id) == 0;
        for (size_t i = 0; i < res.n_threads; i++)
                for (size_t k = 0; k < res.threads[i].n_frames; k++)
                        found = found || strcmp(res.threads[i].frames[k].build_id, id) == 0;
        _cleanup_free_ char *text = res.n_threads > 0 ? unwind_thread_format(&res.threads[0]) : NULL;
        if (!found)
                test_fail(__FILE__, __LINE__, "sleep's build-id %s neither the executable's (%s) nor a frame's in:\n%s", id,
                          res.exe_build_id, text ? text : "(none)");
        unwind_result_done(&res);
        CHECK(kill(pid, SIGKILL) == 0);
        CHECK(waitpid(mid, NULL, 0) == mid);
        CHECK(rmdir(dir) == 0);
}

/* A parser program of the test's: a shell script with body. */
static char *fake_parser(const char *body) {
        char dir[] = "/tmp/coredumpd-fake-parser.XXXXXX";
        CHECK(mkdtemp(dir));
        CHECK(chmod(dir, 0755) == 0);
        char *path = NULL;
        CHECK(asprintf(&path, "%s/coredumpd-parser", dir) > 0);
        FILE *f = fopen(path, "we");
        CHECK(f);
        fprintf(f, "#!/bin/sh\n%s\n", body);
        CHECK(fclose(f) == 0);
        CHECK(chmod(path, 0755) == 0);
        return path;
}

static void fake_parser_remove(char *path) {
        CHECK(unlink(path) == 0);
        path[strlen(path) - strlen("/coredumpd-parser")] = 0;
        CHECK(rmdir(path) == 0);
        free(path);
}

/* The daemon trusts nothing of the parser: one that never answers is killed at its deadline, one that
 * answers garbage or dies is refused, and each ends as an error with its reason, at once. */
TEST(parser_hang_garbage_and_death_refused) {
        static const struct {
                const char *body;
                int error;
                const char *reason;
        } cases[] = {
                { "exec /bin/sleep 60", -ETIMEDOUT, "killed at its deadline" },
                { "printf 'CDPR garbage that is no result'", -EBADMSG, "malformed" },
                { "kill -SEGV $$", -ECHILD, "signal 11" },
                { "exit 0", -EBADMSG, "shorter than its header" },
        };
        pid_t pid;
        struct parser_thread t;
        _cleanup_close_ int proc_fd = sleeper_with_thread("fake-parsed", &pid, &t);
        const char *saved = getenv("COREDUMPD_PARSER");
        _cleanup_free_ char *real = saved ? strdup(saved) : NULL;
        /* Each parser gets an id of its own, given back however it ended (killed, died, exited). */
        char why[512];
        if (cell_ids_init_range("", 2147287040, 16, why, sizeof why) < 0)
                test_fail(__FILE__, __LINE__, "cell_ids_init_range: %s", why);

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *fake = fake_parser(cases[i].body);
                CHECK(setenv("COREDUMPD_PARSER", fake, 1) == 0);
                struct parser_job job = {
                        .proc_fd = proc_fd, .pid = pid, .uid = PARSER_NOBODY, .gid = PARSER_NOBODY,
                        .threads = &t, .n_threads = 1, .budget_usec = 200000,
                };
                struct unwind_result res = {};
                char reason[256] = "";
                uint64_t t0 = now_monotonic_usec();
                CHECK_INT(parser_unwind(&job, &res, reason, sizeof reason), ==, cases[i].error);
                uint64_t took = now_monotonic_usec() - t0;
                if (!strstr(reason, cases[i].reason))
                        test_fail(__FILE__, __LINE__, "case %zu: reason \"%s\" lacks \"%s\"", i, reason, cases[i].reason);
                CHECK_INT(res.n_threads, ==, 0);
                /* The budget, the start grace, at most the kill grace. */
                CHECK_INT(took, <, 200000 + PARSER_START_GRACE_USEC + CHILD_KILL_GRACE_USEC);
                CHECK_INT(cell_ids_held(), ==, 0);
                fake_parser_remove(fake);
        }
        CHECK_OK(cell_ids_init_range("", 0, 0, why, sizeof why));
        parser_env_restore(real);
        sleeper_stop(pid);
}

/* The parser starts with no environment: $DEBUGINFOD_URLS of whoever started the daemon (or
 * anything else of its environment) never reaches libdwfl in the parser, which would otherwise ask
 * a debuginfod server while the crashed task is held. A fake parser writes down what it got. */
TEST(parser_gets_no_environment) {
        pid_t pid;
        struct parser_thread t;
        _cleanup_close_ int proc_fd = sleeper_with_thread("env-parsed", &pid, &t);
        const char *saved = getenv("COREDUMPD_PARSER");
        _cleanup_free_ char *real = saved ? strdup(saved) : NULL;
        _cleanup_free_ char *dir = tmpdir_new(), *body = NULL, *env_file = NULL;
        CHECK(asprintf(&env_file, "%s/environment", dir) > 0);
        CHECK(asprintf(&body, "env > %s", env_file) > 0);
        char *fake = fake_parser(body);

        CHECK(setenv("COREDUMPD_PARSER", fake, 1) == 0);
        CHECK(setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9", 1) == 0);
        CHECK(setenv("COREDUMPD_TEST_CANARY", "leaked", 1) == 0);
        struct parser_job job = {
                .proc_fd = proc_fd, .pid = pid, .uid = PARSER_NOBODY, .gid = PARSER_NOBODY,
                .threads = &t, .n_threads = 1, .budget_usec = 1000000,
        };
        struct unwind_result res = {};
        char reason[256] = "";
        CHECK_INT(parser_unwind(&job, &res, reason, sizeof reason), ==, -EBADMSG); /* it answered nothing */
        unsetenv("DEBUGINFOD_URLS");
        unsetenv("COREDUMPD_TEST_CANARY");

        char env[65536];
        FILE *f = fopen(env_file, "re");
        CHECK(f); /* it ran */
        size_t size = fread(env, 1, sizeof env - 1, f);
        fclose(f);
        env[size] = 0;
        printf("# the parser's environment:\n%s", env);
        CHECK(!strstr(env, "DEBUGINFOD"));
        CHECK(!strstr(env, "COREDUMPD_TEST_CANARY"));
        CHECK(!strstr(env, "COREDUMPD_PARSER")); /* ours, set just now */
        fake_parser_remove(fake);
        parser_env_restore(real);
        tmpdir_remove(dir);
        sleeper_stop(pid);
}

TEST(probe_record_freshness) {
        long hz = sysconf(_SC_CLK_TCK);
        uint64_t tick_ns = UINT64_C(1000000000) / (uint64_t) hz;
        /* A process started at tick 500: a record from tick 500 on is its own, one before is not. */
        CHECK(probe_record_not_before(500 * tick_ns, 500));
        CHECK(probe_record_not_before(500 * tick_ns + 1, 500));
        CHECK(!probe_record_not_before(500 * tick_ns - 1, 500));

        uint64_t pt[CRASH_CONTEXT_NREGS], regs[CORE_NREGS];
        for (unsigned i = 0; i < CRASH_CONTEXT_NREGS; i++)
                pt[i] = 1000 + i;
        probe_regs_to_core(pt, regs);
        CHECK_INT(regs[CORE_REG_RIP], ==, 1000 + CRASH_CONTEXT_REG_IP);
        CHECK_INT(regs[CORE_REG_RSP], ==, 1000 + CRASH_CONTEXT_REG_SP);
        CHECK_INT(regs[CORE_NREGS - 1], ==, 0);
}

TEST(probe_object_has_programs_and_maps) {
        int r = probe_check_object();
        if (r == -EOPNOTSUPP) {
                printf("SKIP: built without the probe\n");
                exit(77);
        }
        CHECK_OK(r);
}

static const struct test_case tests[] = {
        TEST_ENTRY(core_notes_and_stack_match_proc),
        TEST_ENTRY(core_written_as_nobody_after_the_files_are_open),
        TEST_ENTRY(core_modes_heap_refs_and_all_writable),
        TEST_ENTRY(core_size_limit_truncates),
        TEST_ENTRY(gdb_backtrace_threads_and_registers),
        TEST_ENTRY(compact_core_for_the_record),
        TEST_ENTRY(proc_parsers),
        TEST_ENTRY(remote_unless_provably_local),
        TEST_ENTRY(dump_extent_mirrors_vma_dump_size),
        TEST_ENTRY(core_honours_dontdump_and_coredump_filter),
        TEST_ENTRY(policy_si_code_fault_address_userspace_dump),
        TEST_ENTRY(probe_record_freshness),
        TEST_ENTRY(unwind_sleeper_through_libc_into_caller),
        TEST_ENTRY(unwind_reaches_a_file_its_path_no_longer_reaches),
        TEST_ENTRY(parser_hang_garbage_and_death_refused),
        TEST_ENTRY(parser_gets_no_environment),
        TEST_ENTRY(blocked_core_writer_killed_at_deadline),
        TEST_ENTRY(core_writer_holds_no_socket),
        TEST_ENTRY(core_writer_keeps_only_its_own_fds),
        TEST_ENTRY(core_writer_keeps_only_its_own_fds_without_close_range),
        TEST_ENTRY(writer_drops_everything_before_reading_the_task),
        TEST_ENTRY(probe_object_has_programs_and_maps),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
