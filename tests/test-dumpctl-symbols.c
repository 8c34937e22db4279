/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * dumpctl's frame names as an attacker shapes them (cli/symbols-cell.c): a record of another
 * machine names any build-id, and a debuginfod server answers it with any bytes. Root's dumpctl
 * must do that lookup in its unprivileged cell — seen from a fake debuginfod server on loopback,
 * which records the uid of the socket that asks (the kernel's owner of that TCP socket in
 * /proc/net/tcp: SO_PEERCRED is for AF_UNIX only) — and from the cell's own /proc files; a
 * malformed debug file, a cell that crashes or one that hangs costs the names, never the record.
 * Root only (the cell's change of ids), in a network namespace of the test's own; the check of
 * the cell's answer (cli/symbols-wire.c) also without.
 */

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dumpctl.h"
#include "fixtures.h"
#include "harness.h"
#include "shared/cleanup.h"
#include "shared/elf-build-id.h"
#include "shared/timestamp.h"

#define JOURNAL_REMOTE "/lib/systemd/systemd-journal-remote"
#define PORT 8011
#define CELL_UID 65534

static char *read_text(const char *path) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        char *buf = calloc(1, 1 << 20);
        CHECK(buf);
        if (fd < 0)
                return buf; /* "" */
        size_t got = 0;
        ssize_t n;
        while (got < (1 << 20) - 1 && (n = read(fd, buf + got, (1 << 20) - 1 - got)) > 0)
                got += (size_t) n;
        for (size_t i = 0; i < got; i++)
                if (buf[i] == 0)
                        buf[i] = '\n'; /* /proc/PID/environ */
        return buf;
}

static bool setup(void) {
        void *client = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (client)
                dlclose(client);
        if (geteuid() != 0 || access(JOURNAL_REMOTE, X_OK) < 0 || !client) {
                printf("skipping: needs root, " JOURNAL_REMOTE " and libdebuginfod1\n");
                return false;
        }
        /* The servers listen on every address of the test's own network namespace: its loopback. */
        return enter_own_network();
}

/* ---- the fake debuginfod server ------------------------------------------------------------- */

/* The uid owning the TCP socket on 127.0.0.1:port (the client's end of our connection), from
 * /proc/net/tcp; -1 if not found. */
static long socket_uid(int port) {
        _cleanup_free_ char *tcp = read_text("/proc/net/tcp");
        char want[32];
        snprintf(want, sizeof want, "0100007F:%04X ", (unsigned) port);
        for (char *line = strchr(tcp, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
                char local[32], remote[32], state[8], queues[32], timer[32], retransmit[16];
                long uid;
                if (sscanf(line + 1, " %*[0-9]: %31s %31s %7s %31s %31s %15s %ld", local, remote, state, queues, timer,
                           retransmit, &uid) == 7 &&
                    strncmp(want, local, strlen(want) - 1) == 0 && local[strlen(want) - 1] == 0)
                        return uid;
        }
        return -1;
}

/* One connection: the request's path and the asking socket's uid logged ("uid=N GET PATH"), then
 * the file dir/BUILDID served, or (dir/BUILDID.mute) nothing ever, or 404. */
static _Noreturn void serve(int fd, const char *dir, const char *log) {
        char request[4096] = "", path[512] = "", id[64] = "", file[1024];
        size_t got = 0;
        struct sockaddr_in peer;
        socklen_t len = sizeof peer;
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        while (got < sizeof request - 1 && !strstr(request, "\r\n\r\n")) {
                ssize_t n = read(fd, request + got, sizeof request - 1 - got);
                if (n <= 0)
                        _exit(0);
                got += (size_t) n;
        }
        long uid = getpeername(fd, (struct sockaddr *) &peer, &len) == 0 ? socket_uid(ntohs(peer.sin_port)) : -2;
        (void) sscanf(request, "GET %511s", path);
        (void) sscanf(path, "/buildid/%63[0-9a-f]/", id);
        int l = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        dprintf(l, "uid=%ld GET %s\n", uid, path);
        close(l);
        snprintf(file, sizeof file, "%s/%s.mute", dir, id);
        if (id[0] && access(file, F_OK) == 0)
                for (;;)
                        pause();
        snprintf(file, sizeof file, "%s/%s", dir, id);
        int body = id[0] ? open(file, O_RDONLY | O_CLOEXEC) : -1;
        struct stat st;
        if (body < 0 || fstat(body, &st) < 0) {
                dprintf(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                _exit(0);
        }
        dprintf(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %lld\r\n"
                    "Connection: close\r\n\r\n", (long long) st.st_size);
        char buf[65536];
        ssize_t n;
        while ((n = read(body, buf, sizeof buf)) > 0)
                if (write(fd, buf, (size_t) n) != n)
                        break;
        _exit(0);
}

/* The server on 127.0.0.1:PORT, serving dir; a process per connection, all ended with it. */
static pid_t server_start(const char *dir, const char *log) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        CHECK(fd >= 0);
        CHECK(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int) { 1 }, sizeof(int)) == 0);
        CHECK(bind(fd, (struct sockaddr *) &a, sizeof a) == 0 && listen(fd, 64) == 0);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                (void) signal(SIGCHLD, SIG_IGN);
                for (;;) {
                        int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
                        if (c < 0)
                                continue;
                        if (fork() == 0)
                                serve(c, dir, log);
                        close(c);
                }
        }
        close(fd);
        return pid;
}

static void server_stop(pid_t pid) {
        int ws;
        CHECK(kill(pid, SIGKILL) == 0);
        CHECK(waitpid(pid, &ws, 0) == pid);
}

/* ---- the record ----------------------------------------------------------------------------- */

struct fixture {
        struct test_env e;
        char *srv;              /* the server's files */
        char *log;              /* its requests */
        char *jdir;             /* the journal with the record */
        char *debug;            /* the real debug file */
        char id[41];            /* its build-id, the program's */
        uint64_t crash_here;
        char *bt;               /* the record's backtrace */
};

/* The other build-ids the record names: valid, each served something that is no debug file of it. */
static const char *const fake_ids[] = {
        "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222",
        "3333333333333333333333333333333333333333", "4444444444444444444444444444444444444444",
};

/* A record of another machine, pid 31338, of uid's crash: a stripped program's, frame 0 in it (its
 * debug file split off into f->debug), frames 1 to 4 in modules of fake_ids. */
static void fixture_init(struct fixture *f, uid_t uid) {
        *f = (struct fixture) {};
        test_env_init(&f->e, NULL, NULL);
        f->srv = tmpdir_new();
        CHECK(chmod(f->srv, 0755) == 0);
        _cleanup_free_ char *prog = NULL, *out = NULL, *export = NULL, *journal = NULL, *frames = NULL;
        CHECK(asprintf(&prog, "%s/crashy", f->e.dir) > 0 && asprintf(&f->debug, "%s/crashy.debug", f->e.dir) > 0);
        CHECK(asprintf(&f->log, "%s/requests.log", f->e.dir) > 0);
        CHECK_OK(write_text_file(f->e.dir, "crashy.c",
                                 "__attribute__((noinline)) int crash_here(volatile int *p) { return *p + 1; }\n"
                                 "int main(void) { return crash_here((volatile int *) 0); }\n"));
        CHECK_INT(run(NULL, "cc -g -O1 -Wl,--build-id=sha1 -o %s %s/crashy.c && objcopy --only-keep-debug %s %s && "
                            "objcopy --strip-all %s", prog, f->e.dir, prog, f->debug, prog), ==, 0);
        _cleanup_close_ int prog_fd = open(prog, O_RDONLY | O_CLOEXEC);
        CHECK(prog_fd >= 0 && elf_file_build_id(prog_fd, f->id) >= 0);
        CHECK_INT(run(&out, "nm -P %s | awk '$1 == \"crash_here\" { print $3 }'", f->debug), ==, 0);
        unsigned long long a = 0;
        CHECK(sscanf(out, "%llx", &a) == 1 && a > 0);
        f->crash_here = a;

        CHECK(asprintf(&f->bt,
                       "#0  0x%016llx n/a (crashy + 0x%llx)\n#1  0x00007f0000001010 n/a (one.so + 0x10)\n"
                       "#2  0x00007f0000002020 n/a (two.so + 0x20)\n#3  0x00007f0000003030 n/a (three.so + 0x30)\n"
                       "#4  0x00007f0000004040 n/a (four.so + 0x40)\n",
                       0x555555554000ULL + a + 1, a + 1) > 0);
        CHECK(asprintf(&frames,
                       "COREDUMPD_FRAME=0 %s+0x%llx -+0x0 /usr/bin/crashy\nCOREDUMPD_FRAME=1 %s+0x10 -+0x0 /usr/lib/one.so\n"
                       "COREDUMPD_FRAME=2 %s+0x20 -+0x0 /usr/lib/two.so\nCOREDUMPD_FRAME=3 %s+0x30 -+0x0 /usr/lib/three.so\n"
                       "COREDUMPD_FRAME=4 %s+0x40 -+0x0 /usr/lib/four.so\n",
                       f->id, a + 1, fake_ids[0], fake_ids[1], fake_ids[2], fake_ids[3]) > 0);
        CHECK(asprintf(&f->jdir, "%s/remote", f->e.dir) > 0 && mkdir(f->jdir, 0755) == 0);
        CHECK(asprintf(&export, "%s/far.export", f->e.dir) > 0 && asprintf(&journal, "%s/remote-far.journal", f->jdir) > 0);
        FILE *x = fopen(export, "we");
        CHECK(x);
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        fprintf(x, "__REALTIME_TIMESTAMP=%lld\n__MONOTONIC_TIMESTAMP=1\n_BOOT_ID=00112233445566778899aabbccddeeff\n"
                   "_MACHINE_ID=11111111111111111111111111111111\n_HOSTNAME=far\n_UID=0\n"
                   "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMPD_ACTION=reject\nCOREDUMPD_RESULT=rejected\n"
                   "COREDUMP_PID=31338\nCOREDUMP_UID=%u\nCOREDUMP_COMM=crashy\nCOREDUMP_EXE=/usr/bin/crashy\n"
                   "COREDUMP_HOSTNAME=far\nCOREDUMPD_SIGNATURE=eeeeeeeeeeeeeeee\n%s",
                (long long) rt.tv_sec * 1000000 + rt.tv_nsec / 1000, (unsigned) uid, frames);
        uint64_t n = strlen(f->bt); /* the export format's binary field: little-endian size (x86-64) */
        fprintf(x, "COREDUMPD_BACKTRACE\n");
        fwrite(&n, sizeof n, 1, x);
        fprintf(x, "%s\n\n", f->bt);
        fclose(x);
        CHECK_INT(run(NULL, JOURNAL_REMOTE " --output=%s %s >/dev/null 2>&1", journal, export), ==, 0);
}

static void fixture_done(struct fixture *f) {
        tmpdir_remove(f->srv);
        free(f->srv);
        free(f->log);
        free(f->jdir);
        free(f->debug);
        free(f->bt);
        test_env_done(&f->e);
}

/* Copies the debug file into the server's directory as name, changed by edit (may be NULL). */
static void serve_file(struct fixture *f, const char *name, size_t keep, void (*edit)(uint8_t *data, size_t size)) {
        size_t size;
        _cleanup_free_ char *data = NULL;
        {
                _cleanup_close_ int fd = open(f->debug, O_RDONLY | O_CLOEXEC);
                struct stat st;
                CHECK(fd >= 0 && fstat(fd, &st) == 0);
                size = (size_t) st.st_size;
                data = malloc(size);
                CHECK(data && read(fd, data, size) == (ssize_t) size);
        }
        if (edit)
                edit((uint8_t *) data, size);
        _cleanup_free_ char *path = NULL;
        CHECK(asprintf(&path, "%s/%s", f->srv, name) > 0);
        _cleanup_close_ int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        CHECK(out >= 0 && write(out, data, keep && keep < size ? keep : size) > 0);
}

/* The section headers of .symtab and .strtab pointed far past the end: the build-id note (its
 * own section and segment) stays right. */
static void break_symbol_table(uint8_t *data, size_t size) {
        Elf64_Ehdr *h = (Elf64_Ehdr *) data;
        CHECK(size > sizeof *h && memcmp(h->e_ident, ELFMAG, SELFMAG) == 0 && h->e_ident[EI_CLASS] == ELFCLASS64);
        CHECK(h->e_shoff + (uint64_t) h->e_shnum * sizeof(Elf64_Shdr) <= size && h->e_shstrndx < h->e_shnum);
        Elf64_Shdr *sh = (Elf64_Shdr *) (data + h->e_shoff);
        const char *names = (const char *) data + sh[h->e_shstrndx].sh_offset;
        size_t broken = 0;
        for (size_t i = 0; i < h->e_shnum; i++)
                if (sh[i].sh_type == SHT_SYMTAB || strcmp(names + sh[i].sh_name, ".strtab") == 0) {
                        sh[i].sh_offset = UINT64_C(0x7ffffffffff00000);
                        sh[i].sh_size = UINT64_C(0x7ffffffffff00000);
                        sh[i].sh_link = 0xffff;
                        broken++;
                }
        CHECK_INT(broken, ==, 2);
}

/* An ELF header alone whose tables lie past the end, with absurd counts. */
static void header_only(uint8_t *data, size_t size) {
        Elf64_Ehdr *h = (Elf64_Ehdr *) data;
        CHECK(size > sizeof *h);
        h->e_shoff = UINT64_C(0xfffffffffffff000);
        h->e_phoff = UINT64_C(0xffffffff00000000);
        h->e_shnum = 0xffff;
        h->e_phnum = 0xfffe;
        h->e_shstrndx = 0xfffe;
}

static void garbage(uint8_t *data, size_t size) {
        uint32_t x = 2463534242U;
        for (size_t i = 0; i < size; i++) {
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                data[i] = (uint8_t) x;
        }
}

#define WITH_SERVER "DEBUGINFOD_URLS=http://127.0.0.1:8011 DEBUGINFOD_CACHE_PATH=%s "

/* Each line of the server's log asked as uid; at least min of them. */
static void check_asked_as(const char *log, uid_t uid, size_t min) {
        _cleanup_free_ char *requests = read_text(log);
        printf("# the server's log:\n%s", requests);
        char want[64];
        int w = snprintf(want, sizeof want, "uid=%u GET /buildid/", (unsigned) uid);
        size_t n = 0;
        for (const char *line = requests; *line; line = strchr(line, '\n') + 1, n++) {
                if (strncmp(line, want, (size_t) w) != 0)
                        test_fail(__FILE__, __LINE__, "asked by another uid, or another path: %.80s", line);
                if (!strchr(line, '\n'))
                        break;
        }
        CHECK_INT(n, >=, min);
}

/* Root's dumpctl info asks the server as nobody (the cell), from a cache directory of the cell's
 * own; debug files that are malformed (the right build-id with its symbol table pointed past the
 * end, a header with absurd tables, garbage, a file cut short, another build's file) name
 * nothing, and dumpctl prints the record as recorded, exit 0; the same run with the right file
 * names the frame (the set-up works). */
TEST(malformed_debug_files_are_parsed_unprivileged) {
        if (!setup())
                exit(77);
        struct fixture f;
        fixture_init(&f, 0);
        serve_file(&f, f.id, 0, break_symbol_table);
        serve_file(&f, fake_ids[0], 0, header_only);
        serve_file(&f, fake_ids[1], 0, garbage);
        serve_file(&f, fake_ids[2], 1000, NULL);
        serve_file(&f, fake_ids[3], 0, NULL);
        pid_t server = server_start(f.srv, f.log);
        _cleanup_free_ char *cache = NULL, *out = NULL, *err = NULL, *private = NULL, *own = NULL, *good = NULL;
        _cleanup_free_ char *expect = NULL;
        CHECK(asprintf(&cache, "%s/cache", f.e.dir) > 0);
        CHECK_INT(run(&out, WITH_SERVER "%s -D %s --store=%s info 31338 2>&1", cache, dumpctl(), f.jdir, f.e.store_dir),
                  ==, 0);
        CHECK(strstr(out, f.bt));
        CHECK(strstr(out, "COREDUMP_COMM=crashy") && strstr(out, "COREDUMPD_SIGNATURE=eeeeeeeeeeeeeeee"));
        CHECK(!strstr(out, "[debuginfod]"));
        check_asked_as(f.log, CELL_UID, 5);
        _cleanup_free_ char *requests = read_text(f.log);
        CHECK(strstr(requests, f.id));
        for (size_t i = 0; i < ELEMENTSOF(fake_ids); i++)
                CHECK(strstr(requests, fake_ids[i]));

        /* The cache: root's private directory, in it the cell's own. */
        struct stat st;
        CHECK(asprintf(&private, "%s/unprivileged", cache) > 0 && asprintf(&own, "%s/65534", private) > 0);
        CHECK(lstat(private, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == 0700);
        CHECK(lstat(own, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == CELL_UID && (st.st_mode & 07777) == 0700);

        /* The right file: named, by the same way. */
        serve_file(&f, f.id, 0, NULL);
        CHECK(asprintf(&good, "%s/cache-good", f.e.dir) > 0);
        CHECK_INT(run(&out, WITH_SERVER "%s -D %s --store=%s info 31338 2>&1", good, dumpctl(), f.jdir, f.e.store_dir),
                  ==, 0);
        CHECK(asprintf(&expect, "#0  0x%016llx crash_here + 0x1 [debuginfod] (crashy + 0x%llx)\n",
                       (unsigned long long) (0x555555554000ULL + f.crash_here + 1), (unsigned long long) f.crash_here + 1) > 0);
        CHECK(strstr(out, expect));
        check_asked_as(f.log, CELL_UID, 10);

        /* A cache directory root does not own is not used, no file is written into it, and the
         * servers are not asked. */
        _cleanup_free_ char *foreign = NULL, *before = read_text(f.log), *after = NULL;
        CHECK(asprintf(&foreign, "%s/cache-users", f.e.dir) > 0 && mkdir(foreign, 0755) == 0 && chown(foreign, 1000, 1000) == 0);
        CHECK_INT(run(&out, WITH_SERVER "%s -D %s --store=%s info 31338 2>&1", foreign, dumpctl(), f.jdir, f.e.store_dir),
                  ==, 0);
        CHECK(strstr(out, f.bt) && strstr(out, "is not root's; only this machine's debug files name frames."));
        after = read_text(f.log);
        CHECK(strcmp(before, after) == 0);
        CHECK_INT(run(&err, "find %s -mindepth 1 | wc -l", foreign), ==, 0);
        CHECK(strcmp(err, "0\n") == 0);
        server_stop(server);
        fixture_done(&f);
}

/* ---- the cell seen from outside ------------------------------------------------------------- */

/* dumpctl started in the background, its stdout and stderr into out. */
static pid_t dumpctl_spawn(const char *out, const char *format, ...) __attribute__((format(printf, 2, 3)));
static pid_t dumpctl_spawn(const char *out, const char *format, ...) {
        _cleanup_free_ char *command = NULL, *shell = NULL;
        va_list ap;
        va_start(ap, format);
        CHECK(vasprintf(&command, format, ap) > 0);
        va_end(ap);
        CHECK(asprintf(&shell, "exec %s >%s 2>&1", command, out) > 0);
        fprintf(stderr, "$ %s &\n", shell);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                execl("/bin/sh", "sh", "-c", shell, (char *) NULL);
                _exit(127);
        }
        return pid;
}

/* The child of parent (the cell), once it runs as the cell's uid; within 20 s. */
static pid_t cell_of(pid_t parent) {
        uint64_t deadline = now_monotonic_usec() + 20 * UINT64_C(1000000);
        while (now_monotonic_usec() < deadline) {
                _cleanup_free_ char *children = NULL;
                char path[64];
                snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int) parent, (int) parent);
                children = read_text(path);
                int pid = atoi(children);
                if (pid > 0) {
                        snprintf(path, sizeof path, "/proc/%d/status", pid);
                        _cleanup_free_ char *status = read_text(path);
                        if (strstr(status, "\nUid:\t65534\t65534\t65534\t65534\n"))
                                return pid;
                }
                usleep(20 * 1000);
        }
        test_fail(__FILE__, __LINE__, "no cell of pid %d as uid 65534 within 20 s", (int) parent);
}

/* Waits (within 20 s) until the server's log has n lines. */
static void wait_requests(const char *log, size_t n) {
        uint64_t deadline = now_monotonic_usec() + 20 * UINT64_C(1000000);
        for (;;) {
                _cleanup_free_ char *requests = read_text(log);
                size_t lines = 0;
                for (const char *p = requests; (p = strchr(p, '\n')); p++)
                        lines++;
                if (lines >= n)
                        return;
                if (now_monotonic_usec() > deadline)
                        test_fail(__FILE__, __LINE__, "the server was not asked %zu times within 20 s", n);
                usleep(20 * 1000);
        }
}

/* The cell as /proc shows it while it waits for a server that never answers: nobody's ids, no
 * group, no capability (not even in its bounding set), no new privileges, not dumpable (its /proc
 * files root's), no core, no fd but its socket, /dev/null, the connection and its cache's files, in
 * its own cache directory, none of dumpctl's environment; asked as nobody. A cell that crashes
 * costs the names, and the record is printed at once; one that hangs (stopped: its own deadline
 * cannot end it) is killed at $DEBUGINFOD_TIMEOUT + 2 s, and the record is printed. */
TEST(cell_is_unprivileged_and_killed_at_its_deadline) {
        if (!setup())
                exit(77);
        struct fixture f;
        fixture_init(&f, 0);
        _cleanup_free_ char *mute = NULL, *cache = NULL, *out = NULL, *path = NULL, *text = NULL;
        CHECK(asprintf(&mute, "%s.mute", f.id) > 0);
        CHECK_OK(write_text_file(f.srv, mute, ""));
        pid_t server = server_start(f.srv, f.log);
        CHECK(asprintf(&cache, "%s/cache", f.e.dir) > 0 && asprintf(&out, "%s/out", f.e.dir) > 0);

        pid_t d = dumpctl_spawn(out, "env DUMPCTL_TEST_SECRET=hidden DEBUGINFOD_TIMEOUT=30 " WITH_SERVER "%s -D %s --store=%s info 31338",
                                cache, dumpctl(), f.jdir, f.e.store_dir);
        pid_t cell = cell_of(d);
        wait_requests(f.log, 1);
        check_asked_as(f.log, CELL_UID, 1);
        CHECK(asprintf(&path, "/proc/%d/status", (int) cell) > 0);
        text = read_text(path);
        printf("# the cell's status:\n%s", text);
        CHECK(strstr(text, "\nGid:\t65534\t65534\t65534\t65534\n"));
        const char *groups = strstr(text, "\nGroups:");
        CHECK(groups && groups[8 + strspn(groups + 8, " \t")] == '\n');
        CHECK(strstr(text, "\nCapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
                           "CapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\n"));
        CHECK(strstr(text, "\nNoNewPrivs:\t1\n"));
        struct stat st;
        CHECK(stat(path, &st) == 0 && st.st_uid == 0); /* not dumpable: its /proc files are root's */
        free(path), free(text);
        CHECK(asprintf(&path, "/proc/%d/limits", (int) cell) > 0);
        text = read_text(path);
        CHECK(strstr(text, "Max core file size        0                    0 "));
        free(path), free(text);
        CHECK(asprintf(&path, "/proc/%d/environ", (int) cell) > 0);
        text = read_text(path);
        CHECK(!strstr(text, "DUMPCTL_TEST_SECRET") && strstr(text, "DEBUGINFOD_CACHE_PATH=."));
        free(path), free(text);
        CHECK(asprintf(&path, "/proc/%d/cwd", (int) cell) > 0);
        char target[4096];
        ssize_t n = readlink(path, target, sizeof target - 1);
        CHECK(n > 0);
        target[n] = 0;
        _cleanup_free_ char *own = NULL;
        CHECK(asprintf(&own, "%s/unprivileged/65534", cache) > 0);
        CHECK(strcmp(target, own) == 0);
        for (int fd = 0; fd < 1024; fd++) {
                char link[64];
                snprintf(link, sizeof link, "/proc/%d/fd/%d", (int) cell, fd);
                n = readlink(link, target, sizeof target - 1);
                if (n < 0)
                        continue;
                target[n] = 0;
                printf("# the cell's fd %d: %s\n", fd, target);
                if (strncmp(target, "socket:", 7) != 0 && strncmp(target, "pipe:", 5) != 0 &&
                    strncmp(target, "anon_inode:", 11) != 0 && strcmp(target, "/dev/null") != 0 &&
                    !(strncmp(target, own, strlen(own)) == 0 && target[strlen(own)] == '/'))
                        test_fail(__FILE__, __LINE__, "the cell holds %s", target);
        }

        /* It crashes: dumpctl says so and prints the record as recorded, at once. */
        uint64_t t0 = now_monotonic_usec();
        CHECK(kill(cell, SIGSEGV) == 0);
        int ws;
        CHECK(waitpid(d, &ws, 0) == d);
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
        CHECK_INT(now_monotonic_usec() - t0, <, 5 * UINT64_C(1000000));
        text = read_text(out);
        printf("# dumpctl:\n%s", text);
        CHECK(strstr(text, "The symbol lookup ended by signal 11 (Segmentation fault)"));
        CHECK(strstr(text, f.bt) && strstr(text, "COREDUMP_COMM=crashy"));
        free(text);

        /* It hangs where its own deadline cannot end it: killed at DEBUGINFOD_TIMEOUT= + 2 s. */
        t0 = now_monotonic_usec();
        d = dumpctl_spawn(out, "env DEBUGINFOD_TIMEOUT=2 " WITH_SERVER "%s -D %s --store=%s info 31338", cache, dumpctl(),
                          f.jdir, f.e.store_dir);
        cell = cell_of(d);
        CHECK(kill(cell, SIGSTOP) == 0);
        CHECK(waitpid(d, &ws, 0) == d);
        uint64_t took = now_monotonic_usec() - t0;
        printf("# took %llu ms\n", (unsigned long long) (took / 1000));
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
        CHECK_INT(took, >=, 3900 * UINT64_C(1000));
        CHECK_INT(took, <, 9 * UINT64_C(1000000));
        text = read_text(out);
        printf("# dumpctl:\n%s", text);
        CHECK(strstr(text, "The symbol lookup did not end within 2 s (DEBUGINFOD_TIMEOUT= and 2 s): killed"));
        CHECK(strstr(text, f.bt) && strstr(text, "COREDUMP_COMM=crashy"));
        CHECK(kill(cell, 0) < 0 && errno == ESRCH); /* killed and reaped */
        server_stop(server);
        fixture_done(&f);
}

/* A user's dumpctl, with a capability or without: the same lookup in a cell of the user's own
 * ids (no capability, no new privileges), with the client's cache where the user says; asked as
 * the user. */
TEST(user_dumpctl_looks_up_as_the_user) {
        if (!setup())
                exit(77);
        struct fixture f;
        fixture_init(&f, 1000);
        serve_file(&f, f.id, 0, NULL);
        pid_t server = server_start(f.srv, f.log);
        _cleanup_free_ char *cache = NULL, *out = NULL, *expect = NULL, *journal = NULL, *cached = NULL;
        CHECK(chmod(f.e.dir, 0755) == 0 && chmod(f.e.store_dir, 0755) == 0);
        CHECK(asprintf(&journal, "%s/remote-far.journal", f.jdir) > 0 && chmod(journal, 0644) == 0);
        CHECK(asprintf(&cache, "%s/user-cache", f.e.dir) > 0 && mkdir(cache, 0700) == 0 && chown(cache, 1000, 1000) == 0);
        CHECK_INT(run(&out, "setpriv --reuid=1000 --regid=1000 --clear-groups env " WITH_SERVER "%s -D %s --store=%s info "
                            "31338 2>&1", cache, dumpctl(), f.jdir, f.e.store_dir), ==, 0);
        CHECK(asprintf(&expect, "#0  0x%016llx crash_here + 0x1 [debuginfod] (crashy + 0x%llx)\n",
                       (unsigned long long) (0x555555554000ULL + f.crash_here + 1), (unsigned long long) f.crash_here + 1) > 0);
        CHECK(strstr(out, expect));
        check_asked_as(f.log, 1000, 5);
        struct stat st;
        CHECK(asprintf(&cached, "%s/%s/debuginfo", cache, f.id) > 0);
        CHECK(stat(cached, &st) == 0 && st.st_uid == 1000);

        /* The user with a capability (ambient, as a file's would be): the cell is the user's,
         * without it (the cell refuses to run with one, so a name shows there was none). */
        CHECK(unlink(f.log) == 0);
        free(out);
        CHECK_INT(run(&out, "setpriv --reuid=1000 --regid=1000 --clear-groups --inh-caps=+sys_ptrace "
                            "--ambient-caps=+sys_ptrace env " WITH_SERVER "%s -D %s --store=%s info 31338 2>&1",
                      cache, dumpctl(), f.jdir, f.e.store_dir), ==, 0);
        CHECK(strstr(out, expect));
        server_stop(server);
        fixture_done(&f);
}

/* ---- the cell's answer, as a taken-over cell may send it ------------------------------------- */

static void count_notice(enum symbols_notice notice, int error, void *userdata) {
        int *seen = userdata;
        seen[notice] = error ?: -1;
}

static bool decode(const char *text, size_t size, size_t n, struct symbol_answer *answers, int *seen) {
        _cleanup_free_ char *buf = malloc(size + 1);
        CHECK(buf);
        memcpy(buf, text, size);
        return symbols_answer_decode(buf, size, n, answers, count_notice, seen);
}
#define DECODE(text, n) decode(text, sizeof text - 1, n, answers, seen)

/* dumpctl believes only what the wire allows: a name per frame asked, of printable ASCII (no
 * terminal sequence), at most SYMBOL_MAX bytes; known notices before the names, each errno within
 * 1 to 4095; nothing after the end, no NUL, no line unended. Without root. */
TEST(answer_is_checked_before_it_is_believed) {
        static struct symbol_answer answers[SYMBOLS_MAX_QUERIES];
        int seen[_SYMBOLS_NOTICE_MAX] = {};

        CHECK(DECODE("! error 111\n! time\n= D 0x1 crash_here\n-\n= L 0xabc main with spaces\n.\n", 3));
        CHECK(answers[0].origin == SYMBOL_DEBUGINFOD && answers[0].offset == 1 && strcmp(answers[0].name, "crash_here") == 0);
        CHECK(answers[1].origin == SYMBOL_NONE);
        CHECK(answers[2].origin == SYMBOL_LOCAL && answers[2].offset == 0xabc && strcmp(answers[2].name, "main with spaces") == 0);
        CHECK_INT(seen[SYMBOLS_NOTICE_ERROR], ==, 111);
        CHECK_INT(seen[SYMBOLS_NOTICE_TIME], ==, -1);
        CHECK(DECODE("! cell 1\n.\n", 0));
        CHECK_INT(seen[SYMBOLS_NOTICE_CELL], ==, 1);

        CHECK(!DECODE("= D 0x1 \x1b]0;owned\x07\n.\n", 1));      /* a terminal sequence */
        CHECK(!DECODE("= D 0x1 caf\xc3\xa9\n.\n", 1));            /* not ASCII */
        CHECK(!DECODE("= D 0x1 \n.\n", 1));                        /* no name */
        CHECK(!DECODE("= D 0x1 a\n-\n.\n", 1));                    /* more than asked */
        CHECK(!DECODE("= D 0x1 a\n.\n", 2));                       /* fewer */
        CHECK(!DECODE("-\n.\n-\n", 1));                           /* after the end */
        CHECK(!DECODE("-\n.\n.\n", 1));
        CHECK(!DECODE("-\n.", 1));                                 /* unended */
        CHECK(!decode("-\n\0\n.\n", 5, 1, answers, seen));        /* a NUL */
        CHECK(!DECODE("-\n! time\n.\n", 1));                      /* a notice among the names */
        CHECK(!DECODE("! rm -rf /\n-\n.\n", 1));                  /* no notice of the wire's */
        CHECK(!DECODE("! error 0\n-\n.\n", 1));
        CHECK(!DECODE("! error 4096\n-\n.\n", 1));
        CHECK(!DECODE("! error\n-\n.\n", 1));
        CHECK(!DECODE("! time 5\n-\n.\n", 1));
        CHECK(!DECODE("= X 0x1 a\n.\n", 1));                       /* no such origin */
        CHECK(!DECODE("= D 0X1 a\n.\n", 1));
        CHECK(!DECODE("= D 0xABC a\n.\n", 1));
        CHECK(!DECODE("= D 0x11112222333344445 a\n.\n", 1));       /* 17 digits */
        CHECK(!DECODE("= D 0x a\n.\n", 1));

        /* A name of SYMBOL_MAX bytes passes, one more does not. */
        char text[SYMBOL_MAX + 64];
        int len = snprintf(text, sizeof text, "= D 0x1 %0*d\n.\n", SYMBOL_MAX, 0);
        CHECK(decode(text, (size_t) len, 1, answers, seen) && strlen(answers[0].name) == SYMBOL_MAX);
        len = snprintf(text, sizeof text, "= D 0x1 %0*d\n.\n", SYMBOL_MAX + 1, 0);
        CHECK(!decode(text, (size_t) len, 1, answers, seen));
}

static const struct test_case tests[] = {
        TEST_ENTRY(answer_is_checked_before_it_is_believed),
        TEST_ENTRY(malformed_debug_files_are_parsed_unprivileged),
        TEST_ENTRY(cell_is_unprivileged_and_killed_at_its_deadline),
        TEST_ENTRY(user_dumpctl_looks_up_as_the_user),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
