/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reader (`coredumpd-parser --reader`, parser/wire.h, parser/client.h): its answers checked
 * whole, one reader per tenant and ids kept between errands, and a reader that does not answer,
 * answers nonsense, or is gone, never believed and never waited for past its deadline. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixtures.h"
#include "harness.h"
#include "parser/client.h"
#include "parser/wire.h"
#include "shared/child.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "shared/timestamp.h"

static size_t encode_site(struct reader_answer *a, uint32_t seq, char *buf) {
        a->kind = READER_SITE;
        return reader_answer_encode(a, seq, buf);
}

/* Each way an answer can lie about itself is refused; the true one decodes to what was sent. */
TEST(reader_answer_checked_whole) {
        static char buf[READER_ANSWER_MAX], bad[READER_ANSWER_MAX];
        static struct reader_answer a, got;
        char reason[160];

        a = (struct reader_answer) { .exe_dev = 0x801, .exe_ino = 12, .n_maps = 2, .n_words = 3 };
        a.maps[0] = (struct reader_mapping) { .start = 0x1000, .end = 0x3000, .offset = 0x1000, .inode = 12, .dev_major = 8, .dev_minor = 1 };
        a.maps[1] = (struct reader_mapping) { .start = 0x7000, .end = 0x9000, .inode = 13, .dev_major = 8, .dev_minor = 1 };
        a.words[0] = 0x1234;
        a.words[1] = 0x7010;
        a.words[2] = 42;
        size_t size = encode_site(&a, 7, buf);
        CHECK_OK(reader_answer_decode(buf, size, READER_SITE, 7, &got, reason, sizeof reason));
        CHECK_INT(got.n_maps, ==, 2);
        CHECK_INT(got.n_words, ==, 3);
        CHECK(got.maps[1].start == 0x7000 && got.words[1] == 0x7010 && got.exe_ino == 12);
        CHECK(got.text == NULL);
        /* Another request's answer, another kind, a byte more or less. */
        CHECK_INT(reader_answer_decode(buf, size, READER_SITE, 8, &got, reason, sizeof reason), ==, -EBADMSG);
        CHECK_INT(reader_answer_decode(buf, size, READER_CMDLINE, 7, &got, reason, sizeof reason), ==, -EBADMSG);
        CHECK_INT(reader_answer_decode(buf, size - 1, READER_SITE, 7, &got, reason, sizeof reason), ==, -EBADMSG);
        CHECK_INT(reader_answer_decode(buf, size + 1, READER_SITE, 7, &got, reason, sizeof reason), ==, -EBADMSG);
        CHECK_INT(reader_answer_decode(buf, 10, READER_SITE, 7, &got, reason, sizeof reason), ==, -EBADMSG);

        struct reader_answer_header h;
        memcpy(&h, buf, sizeof h);
#define MUTATED(field, value)                                                                              \
        do {                                                                                               \
                struct reader_answer_header m = h;                                                         \
                m.field = (value);                                                                         \
                memcpy(bad, buf, size);                                                                    \
                memcpy(bad, &m, sizeof m);                                                                 \
                CHECK_INT(reader_answer_decode(bad, size, READER_SITE, 7, &got, reason, sizeof reason), ==, -EBADMSG); \
        } while (0)
        MUTATED(magic, 0);
        MUTATED(version, READER_VERSION + 1);
        MUTATED(reserved, 1);
        MUTATED(error, 5);                      /* no -errno */
        MUTATED(error, -EIO);                   /* an error with a payload */
        MUTATED(why, _READER_SITE_WHY_MAX);
        MUTATED(why, READER_SITE_NOT_IN_MEMORY); /* no words then */
        MUTATED(n_maps, READER_MAPS_MAX + 1);
        MUTATED(n_words, READER_WORDS_MAX + 1);
        MUTATED(text_size, 1);                  /* a site has no text */
        MUTATED(n_words, UINT32_MAX);           /* sizes that would wrap */

        /* Mappings: out of order, overlapping, empty, no file's. */
        struct reader_answer m = a;
        m.maps[0] = a.maps[1];
        m.maps[1] = a.maps[0];
        size = encode_site(&m, 7, buf);
        CHECK_INT(reader_answer_decode(buf, size, READER_SITE, 7, &got, reason, sizeof reason), ==, -EBADMSG);
        m = a;
        m.maps[1].start = 0x2000;
        size = encode_site(&m, 7, buf);
        CHECK_INT(reader_answer_decode(buf, size, READER_SITE, 7, &got, reason, sizeof reason), ==, -EBADMSG);
        m = a;
        m.maps[0].end = m.maps[0].start;
        size = encode_site(&m, 7, buf);
        CHECK_INT(reader_answer_decode(buf, size, READER_SITE, 7, &got, reason, sizeof reason), ==, -EBADMSG);
        m = a;
        m.maps[0].inode = 0;
        size = encode_site(&m, 7, buf);
        CHECK_INT(reader_answer_decode(buf, size, READER_SITE, 7, &got, reason, sizeof reason), ==, -EBADMSG);
        m = a;
        m.maps[0].dev_major = 1u << 12;
        size = encode_site(&m, 7, buf);
        CHECK_INT(reader_answer_decode(buf, size, READER_SITE, 7, &got, reason, sizeof reason), ==, -EBADMSG);

        /* A command line: text only, NUL-terminated after its raw bytes (which may hold NULs). */
        char text[] = "sleep\0" "1000";
        struct reader_answer c = { .kind = READER_CMDLINE, .text = text, .text_size = sizeof text };
        size = reader_answer_encode(&c, 9, buf);
        CHECK_OK(reader_answer_decode(buf, size, READER_CMDLINE, 9, &got, reason, sizeof reason));
        CHECK_INT(got.text_size, ==, sizeof text);
        CHECK(memcmp(got.text, text, sizeof text) == 0 && got.text[got.text_size] == 0);
        reader_answer_done(&got);
        memcpy(&h, buf, sizeof h);
        h.n_words = 1; /* words in a command line's answer */
        memcpy(bad, buf, size);
        memcpy(bad, &h, sizeof h);
        memcpy(bad + size, "\0\0\0\0\0\0\0\0", 8);
        CHECK_INT(reader_answer_decode(bad, size + 8, READER_CMDLINE, 9, &got, reason, sizeof reason), ==, -EBADMSG);

        /* A container's files: one absolute path per mapping, NUL-terminated, nothing after. */
        char paths[] = "/usr/bin/x\0/lib/y.so";
        struct reader_answer f = { .kind = READER_FILES, .n_maps = 2, .n_files = 5, .n_remote = 1, .text = paths,
                                   .text_size = sizeof paths };
        f.maps[0] = a.maps[0];
        f.maps[1] = a.maps[1];
        size = reader_answer_encode(&f, 3, buf);
        CHECK_OK(reader_answer_decode(buf, size, READER_FILES, 3, &got, reason, sizeof reason));
        CHECK_STR(got.paths[0], "/usr/bin/x");
        CHECK_STR(got.paths[1], "/lib/y.so");
        CHECK(got.n_files == 5 && got.n_remote == 1);
        reader_answer_done(&got);
        static const struct {
                const char *text;
                size_t size;
        } bad_paths[] = {
                { "/usr/bin/x\0/lib/y.so", sizeof "/usr/bin/x\0/lib/y.so" - 1 },     /* the last not ended */
                { "/usr/bin/x\0lib/y.so", sizeof "/usr/bin/x\0lib/y.so" },           /* not absolute */
                { "/usr/bin/x\0\0", sizeof "/usr/bin/x\0\0" - 1 },                  /* empty */
                { "/usr/bin/x\0/lib/y.so\0/z", sizeof "/usr/bin/x\0/lib/y.so\0/z" }, /* bytes after */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad_paths); i++) {
                f.text = (char *) bad_paths[i].text;
                f.text_size = bad_paths[i].size;
                size = reader_answer_encode(&f, 3, buf);
                CHECK_INT(reader_answer_decode(buf, size, READER_FILES, 3, &got, reason, sizeof reason), ==, -EBADMSG);
        }
        f.text = paths;
        f.text_size = sizeof paths;
        f.n_remote = 4; /* more files returned than local ones */
        size = reader_answer_encode(&f, 3, buf);
        CHECK_INT(reader_answer_decode(buf, size, READER_FILES, 3, &got, reason, sizeof reason), ==, -EBADMSG);
        f.n_remote = 6; /* more remote files than files */
        size = reader_answer_encode(&f, 3, buf);
        CHECK_INT(reader_answer_decode(buf, size, READER_FILES, 3, &got, reason, sizeof reason), ==, -EBADMSG);
}

/* A kept crash's /proc texts: three, each NUL-ended, within its bound, whole lines; anything else
 * (a text too long, cut within a line, one missing, bytes after, parts a text answer has not) is
 * refused. */
TEST(reader_proc_answer_checked_whole) {
        static char buf[READER_ANSWER_MAX], text[READER_TEXT_MAX];
        static struct reader_answer got;
        char reason[160];

        static const char good[] = "Name:\tcat\n\0" "5555-6666 r-xp 0 08:01 12 /usr/bin/cat\n\0" "Max core file size 0 0 bytes\n";
        struct reader_answer p = { .kind = READER_PROC, .text = (char *) good, .text_size = sizeof good };
        size_t size = reader_answer_encode(&p, 4, buf);
        CHECK_OK(reader_answer_decode(buf, size, READER_PROC, 4, &got, reason, sizeof reason));
        CHECK_STR(got.proc[0], "Name:\tcat\n");
        CHECK_STR(got.proc[1], "5555-6666 r-xp 0 08:01 12 /usr/bin/cat\n");
        CHECK_STR(got.proc[2], "Max core file size 0 0 bytes\n");
        reader_answer_done(&got);
        /* Empty texts (not read) are fine. */
        p.text = (char *) "\0\0";
        p.text_size = 3;
        size = reader_answer_encode(&p, 4, buf);
        CHECK_OK(reader_answer_decode(buf, size, READER_PROC, 4, &got, reason, sizeof reason));
        CHECK_STR(got.proc[1], "");
        reader_answer_done(&got);
        /* Another kind asked. */
        CHECK_INT(reader_answer_decode(buf, size, READER_CMDLINE, 4, &got, reason, sizeof reason), ==, -EBADMSG);

        static const struct {
                const char *text;
                size_t size;
        } lies[] = {
                { "Name:\tcat\n\0\0", 12 },                          /* two texts */
                { "Name:\tcat\n\0\0\0\0", 15 },                    /* bytes after the third */
                { "Name:\tcat\n\0\0x\n", 14 },                      /* the third not ended */
                { "Name:\tcat\0\0\0", 12 },                          /* cut within a line */
                { "", 0 },                                            /* nothing */
        };
        for (size_t i = 0; i < ELEMENTSOF(lies); i++) {
                p.text = (char *) lies[i].text;
                p.text_size = lies[i].size;
                size = reader_answer_encode(&p, 4, buf);
                CHECK_INT(reader_answer_decode(buf, size, READER_PROC, 4, &got, reason, sizeof reason), ==, -EBADMSG);
        }
        /* Each text over its bound by a line: status, maps, limits. */
        for (size_t over = 0; over < READER_PROC_PARTS; over++) {
                size_t at = 0;
                for (size_t i = 0; i < READER_PROC_PARTS; i++) {
                        size_t len = i == over ? reader_proc_max(i) + 2 : 2;
                        memset(text + at, 'x', len - 1);
                        text[at + len - 1] = '\n';
                        text[at + len] = 0;
                        at += len + 1;
                }
                p.text = text;
                p.text_size = at;
                size = reader_answer_encode(&p, 4, buf);
                CHECK_INT(reader_answer_decode(buf, size, READER_PROC, 4, &got, reason, sizeof reason), ==, -EBADMSG);
                CHECK(strstr(reason, "over its") != NULL);
                /* At its bound exactly: taken. */
                at = 0;
                for (size_t i = 0; i < READER_PROC_PARTS; i++) {
                        size_t len = i == over ? reader_proc_max(i) : 2;
                        memset(text + at, 'x', len - 1);
                        text[at + len - 1] = '\n';
                        text[at + len] = 0;
                        at += len + 1;
                }
                p.text_size = at;
                size = reader_answer_encode(&p, 4, buf);
                CHECK_OK(reader_answer_decode(buf, size, READER_PROC, 4, &got, reason, sizeof reason));
                CHECK_INT(strlen(got.proc[over]), ==, reader_proc_max(over));
                reader_answer_done(&got);
        }
        /* Words or mappings in a text answer. */
        p.text = (char *) good;
        p.text_size = sizeof good;
        size = reader_answer_encode(&p, 4, buf);
        struct reader_answer_header h;
        memcpy(&h, buf, sizeof h);
        h.n_words = 1;
        static char bad[READER_ANSWER_MAX];
        memcpy(bad, &h, sizeof h);
        memset(bad + sizeof h, 0, 8);
        memcpy(bad + sizeof h + 8, buf + sizeof h, size - sizeof h);
        CHECK_INT(reader_answer_decode(bad, size + 8, READER_PROC, 4, &got, reason, sizeof reason), ==, -EBADMSG);
}

static struct reader_job job_for(const struct tenant *t, int proc_fd, uint64_t wait_usec) {
        return (struct reader_job) {
                .proc_fd = proc_fd,
                .owner = t,
                .uid = 65534,
                .gid = 65534,
                .deadline_usec = now_monotonic_usec() + wait_usec,
        };
}

/* The real reader: a task's command line read through it; one reader per tenant, kept between
 * errands (a crash loop starts none per crash), another tenant never served by it. */
TEST(reader_one_per_tenant_kept_between_errands) {
        static const struct tenant a = { .uid = 4100, .host = true }, b = { .uid = 4101, .host = true };
        char reason[160] = "";
        char path[64];

        reader_pool_end();
        CHECK_INT(reader_pool_count(), ==, 0);
        pid_t pid = sleeper_exec("reader-argv0", "exec sleep 1000");
        snprintf(path, sizeof path, "/proc/%d", (int) pid);
        _cleanup_close_ int proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(proc_fd >= 0);
        for (int i = 0; i < 200; i++) { /* until it runs sleep */
                _cleanup_free_ char *text = NULL;
                size_t size = 0;
                struct reader_job job = job_for(&a, proc_fd, 5 * UINT64_C(1000000));
                CHECK_OK(reader_cmdline(&job, proc_fd, "cmdline", &text, &size, reason, sizeof reason));
                if (size == sizeof "sleep\0" "1000" && memcmp(text, "sleep\0" "1000", size) == 0)
                        break;
                CHECK(i < 199);
                usleep(10000);
        }
        CHECK_INT(reader_pool_count(), ==, 1);
        for (int i = 0; i < 20; i++) {
                _cleanup_free_ char *text = NULL;
                size_t size = 0;
                struct reader_job job = job_for(&a, proc_fd, 5 * UINT64_C(1000000));
                CHECK_OK(reader_cmdline(&job, proc_fd, "cmdline", &text, &size, reason, sizeof reason));
        }
        CHECK_INT(reader_pool_count(), ==, 1); /* the same reader, 20 times */
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        struct reader_job job = job_for(&b, proc_fd, 5 * UINT64_C(1000000));
        CHECK_OK(reader_cmdline(&job, proc_fd, "cmdline", &text, &size, reason, sizeof reason));
        CHECK_INT(reader_pool_count(), ==, 2); /* b's own */
        reader_pool_end();
        CHECK_INT(reader_pool_count(), ==, 0);
        sleeper_stop(pid);
}

/* The real reader on our own maps: the files we map, each once, in address order, the executable's
 * among them (the test binary is on a local file system). */
TEST(reader_files_of_a_task) {
        static const struct tenant t = { .uid = 4300, .host = true };
        _cleanup_close_ int proc_fd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ struct reader_answer *a = calloc(1, sizeof *a);
        _cleanup_free_ char *exe = realpath("/proc/self/exe", NULL);
        char reason[160] = "";

        CHECK(proc_fd >= 0 && a && exe);
        struct reader_job job = job_for(&t, proc_fd, 5 * UINT64_C(1000000));
        CHECK_OK(reader_files(&job, exe, a, reason, sizeof reason));
        CHECK(a->n_maps > 0 && a->n_files >= a->n_maps);
        bool has_exe = false;
        for (size_t i = 0; i < a->n_maps; i++) {
                has_exe = has_exe || strcmp(a->paths[i], exe) == 0;
                for (size_t k = 0; k < i; k++)
                        CHECK(a->maps[k].inode != a->maps[i].inode || a->maps[k].dev_minor != a->maps[i].dev_minor ||
                              a->maps[k].dev_major != a->maps[i].dev_major);
        }
        CHECK(has_exe);
        reader_answer_done(a);
        reader_pool_end();
}

/* The real reader on a task of ours: its status, maps and limits, each within its bound and whole
 * lines; the maps name the executable, the limits the core's. */
TEST(reader_proc_texts_of_a_task) {
        static const struct tenant t = { .uid = 4400, .host = true };
        _cleanup_free_ char *exe = realpath("/proc/self/exe", NULL);
        char reason[160] = "";
        char path[64];
        char *texts[READER_PROC_PARTS] = {};

        pid_t pid = sleeper_exec("reader-proc", "exec sleep 1000");
        snprintf(path, sizeof path, "/proc/%d", (int) pid);
        _cleanup_close_ int proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(proc_fd >= 0 && exe);
        for (int i = 0; i < 200; i++) { /* until it runs sleep (maps opened before the exec are the
                                          * shell's, whose memory is gone) */
                struct reader_job job = job_for(&t, proc_fd, 5 * UINT64_C(1000000));
                CHECK_OK(reader_proc_texts(&job, texts, reason, sizeof reason));
                if (strstr(texts[0], "Name:\tsleep\n") && strstr(texts[1], "/sleep\n"))
                        break;
                for (size_t k = 0; k < READER_PROC_PARTS; k++)
                        free(texts[k]);
                CHECK(i < 199);
                usleep(10000);
        }
        CHECK(strncmp(texts[0], "Name:\tsleep\n", 12) == 0 && strstr(texts[0], "\nUid:\t"));
        CHECK(strstr(texts[1], "/sleep\n") != NULL);
        CHECK(strstr(texts[2], "Max core file size") != NULL);
        for (size_t k = 0; k < READER_PROC_PARTS; k++) {
                size_t len = strlen(texts[k]);
                CHECK(len > 0 && len <= reader_proc_max(k) && texts[k][len - 1] == '\n');
                free(texts[k]);
        }
        sleeper_stop(pid);

        /* Our own maps, with many more mappings than their bound holds: cut at a line's end. */
        enum { N = 4000 };
        static void *held[N];
        long page = sysconf(_SC_PAGESIZE);
        for (size_t i = 0; i < N; i++) {
                /* every other page writable: none merges with its neighbour */
                held[i] = mmap(NULL, (size_t) page * 2, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                CHECK(held[i] != MAP_FAILED);
                CHECK(mprotect(held[i], (size_t) page, PROT_READ | PROT_WRITE) == 0);
        }
        _cleanup_close_ int self_fd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct reader_job job = job_for(&t, self_fd, 5 * UINT64_C(1000000));
        CHECK_OK(reader_proc_texts(&job, texts, reason, sizeof reason));
        size_t len = strlen(texts[1]);
        CHECK_INT(len, <=, READER_PROC_MAPS_MAX);
        CHECK_INT(len, >, READER_PROC_MAPS_MAX - 200);
        CHECK(texts[1][len - 1] == '\n');
        for (size_t k = 0; k < READER_PROC_PARTS; k++)
                free(texts[k]);
        for (size_t i = 0; i < N; i++)
                munmap(held[i], (size_t) page * 2);
        reader_pool_end();
}

/* A fake reader program (as $COREDUMPD_PARSER) in dir: script, run by /bin/sh or python3. */
static char *fake_reader(const char *dir, const char *interpreter, const char *script) {
        char *path = NULL;
        CHECK(asprintf(&path, "%s/fake-reader", dir) > 0);
        FILE *f = fopen(path, "we");
        CHECK(f);
        fprintf(f, "#!%s\n%s", interpreter, script);
        CHECK(fclose(f) == 0);
        CHECK(chmod(path, 0755) == 0);
        return path;
}

/* Attack: a reader whose read waits (the task's mmap_lock held by a process sharing its memory)
 * is killed at the deadline and the errand fails with -ETIMEDOUT, not a moment later; a reader that
 * answers nonsense (another request's sequence, a short message) is not believed and is ended; the
 * next errand gets a new reader. */
TEST(reader_silent_or_lying_is_killed_at_deadline) {
        static const struct tenant t = { .uid = 4200, .host = true };
        _cleanup_free_ char *dir = tmpdir_new();
        const char *parser = getenv("COREDUMPD_PARSER");
        _cleanup_free_ char *saved = parser ? strdup(parser) : NULL;
        char reason[160] = "";

        reader_pool_end();
        _cleanup_close_ int proc_fd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(proc_fd >= 0);

        /* Silent: it takes the request and never answers. */
        _cleanup_free_ char *silent = fake_reader(dir, "/bin/sh", "exec sleep 60\n");
        CHECK(setenv("COREDUMPD_PARSER", silent, 1) == 0);
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        uint64_t t0 = now_monotonic_usec();
        struct reader_job job = job_for(&t, proc_fd, 300000);
        CHECK_INT(reader_cmdline(&job, proc_fd, "cmdline", &text, &size, reason, sizeof reason), ==, -ETIMEDOUT);
        uint64_t took = now_monotonic_usec() - t0;
        CHECK_INT(took, >=, 300000);
        CHECK_INT(took, <, 1500000);
        CHECK(strstr(reason, "killed at its deadline") != NULL);
        CHECK_INT(reader_pool_count(), ==, 0);
        CHECK_INT(stuck_count(&t), ==, 0); /* SIGKILL ended it */

        /* Lying: an answer to another request (sequence 99), then a message too short. */
        static const char *const lies[] = {
                "import socket, struct\n"
                "s = socket.socket(fileno=0)\n"
                "s.recv(64)\n"
                "socket.recv_fds(s, 8192, 4)\n"
                "s.send(struct.pack('=IIIIiIQQIIIIII', 0x41524443, 1, 2, 99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))\n"
                "s.recv(1)\n",
                "import socket\n"
                "s = socket.socket(fileno=0)\n"
                "s.recv(64)\n"
                "socket.recv_fds(s, 8192, 4)\n"
                "s.send(b'CDRA')\n"
                "s.recv(1)\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(lies); i++) {
                _cleanup_free_ char *liar = fake_reader(dir, "/usr/bin/python3", lies[i]);
                CHECK(setenv("COREDUMPD_PARSER", liar, 1) == 0);
                job = job_for(&t, proc_fd, 5 * UINT64_C(1000000));
                CHECK_INT(reader_cmdline(&job, proc_fd, "cmdline", &text, &size, reason, sizeof reason), ==, -EBADMSG);
                CHECK(strstr(reason, "malformed") != NULL);
                CHECK_INT(reader_pool_count(), ==, 0);
        }

        /* Asked for a task's /proc texts: one text over its bound, and no NUL between the texts. */
        static const char *const proc_lies[] = {
                "import socket, struct\n"
                "s = socket.socket(fileno=0)\n"
                "s.recv(64)\n"
                "m, fds, f, a = socket.recv_fds(s, 8192, 4)\n"
                "seq = struct.unpack_from('=I', m, 12)[0]\n"
                "t = b'Name:\\tx\\n\\0' + b'x' * (96 * 1024) + b'\\n\\0\\0'\n"
                "s.send(struct.pack('=IIIIiIQQIIIIII', 0x41524443, 1, 4, seq, 0, 0, 0, 0, 0, 0, len(t), 0, 0, 0) + t)\n"
                "s.recv(1)\n",
                "import socket, struct\n"
                "s = socket.socket(fileno=0)\n"
                "s.recv(64)\n"
                "m, fds, f, a = socket.recv_fds(s, 8192, 4)\n"
                "seq = struct.unpack_from('=I', m, 12)[0]\n"
                "t = b'Name:\\tx\\nVmRSS: 1\\nMax core file size\\n'\n"
                "s.send(struct.pack('=IIIIiIQQIIIIII', 0x41524443, 1, 4, seq, 0, 0, 0, 0, 0, 0, len(t), 0, 0, 0) + t)\n"
                "s.recv(1)\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(proc_lies); i++) {
                _cleanup_free_ char *liar = fake_reader(dir, "/usr/bin/python3", proc_lies[i]);
                char *texts[READER_PROC_PARTS] = {};
                CHECK(setenv("COREDUMPD_PARSER", liar, 1) == 0);
                job = job_for(&t, proc_fd, 5 * UINT64_C(1000000));
                CHECK_INT(reader_proc_texts(&job, texts, reason, sizeof reason), ==, -EBADMSG);
                CHECK(strstr(reason, "malformed") != NULL);
                CHECK(!texts[0] && !texts[1] && !texts[2]);
                CHECK_INT(reader_pool_count(), ==, 0);
        }

        /* The real one again: a new reader, and the answer. */
        CHECK(saved ? setenv("COREDUMPD_PARSER", saved, 1) == 0 : unsetenv("COREDUMPD_PARSER") == 0);
        job = job_for(&t, proc_fd, 5 * UINT64_C(1000000));
        CHECK_OK(reader_cmdline(&job, proc_fd, "cmdline", &text, &size, reason, sizeof reason));
        CHECK(size > 0);
        reader_pool_end();
}

/* A root reader is refused: the reader runs as the crashing user or nobody, never as root. */
TEST(reader_never_as_root) {
        static const struct tenant t = { .uid = 0, .host = true };
        _cleanup_close_ int proc_fd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ char *text = NULL;
        char reason[160] = "";
        size_t size = 0;
        struct reader_job job = job_for(&t, proc_fd, 1000000);
        job.uid = 0;
        CHECK_INT(reader_cmdline(&job, proc_fd, "cmdline", &text, &size, reason, sizeof reason), ==, -EPERM);
        CHECK_INT(reader_pool_count(), ==, 0);
}

static const struct test_case tests[] = {
        TEST_ENTRY(reader_answer_checked_whole),
        TEST_ENTRY(reader_proc_answer_checked_whole),
        TEST_ENTRY(reader_proc_texts_of_a_task),
        TEST_ENTRY(reader_one_per_tenant_kept_between_errands),
        TEST_ENTRY(reader_files_of_a_task),
        TEST_ENTRY(reader_silent_or_lying_is_killed_at_deadline),
        TEST_ENTRY(reader_never_as_root),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
