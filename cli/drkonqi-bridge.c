/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * coredumpd-drkonqi: hands one recorded crash to the crashing user's DrKonqi, the way KDE's
 * drkonqi-coredump-processor does for systemd-coredump's (coredumpd(8), DESKTOP). Started as a hook,
 * coredumpd-drkonqi@CRASH_ID.service (wanted by coredumpd-crash@.service), as root in a sandbox:
 *
 *   1. reads the crash's record from this machine's system journal (MESSAGE_ID of a coredump,
 *      COREDUMPD_CRASH_ID=CRASH_ID, sent by root: _UID=0), waiting for journald at most 10 s;
 *   2. takes its user from COREDUMP_UID= and COREDUMP_GID=; nothing is sent unless
 *      /run/user/UID is a directory (not a symlink) that user owns: a running session;
 *   3. becomes that user (no supplementary groups) before it looks into the directory, so
 *      everything there, which the user controls, is reached with the user's rights only;
 *   4. connects to the launcher's socket there (drkonqi-coredump-launcher, SOCK_SEQPACKET, a
 *      socket the user owns, not a symlink) and sends the record as DrKonqi's launcher reads it:
 *      one JSON object of the record's fields, name to string value (all but the binary COREDUMP=),
 *      in packets of at most 8192 bytes, then closes. Every send and the connect within 5 s.
 *
 * A crash without a session, or a session without DrKonqi's socket, is nothing to do (exit 0).
 * --record=FILE reads the record from a file of FIELD=value lines instead (tests, replays);
 * --runtime-dir=DIR stands for /run/user.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/crash-id.h"
#include "shared/fields.h"
#include "shared/fileio.h"
#include "shared/log.h"

#define LAUNCHER_SOCKET "drkonqi-coredump-launcher"
/* The launcher reads packet by packet into a buffer of its own: a longer packet is cut and its JSON
 * does not parse (one of 20 KB fails). DrKonqi's processor writes at most 8192 bytes at a time. */
#define PACKET_MAX 8192
/* A record bigger than this is not a record coredumpd wrote. */
#define RECORD_MAX (4u << 20)
#define JOURNAL_WAIT_USEC (10ull * 1000000)
#define SEND_TIMEOUT_SEC 5

struct record {
        char **fields;          /* "NAME=value", each NUL-terminated (values with a NUL left out) */
        size_t n, allocated, bytes;
};

static void record_done(struct record *r) {
        for (size_t i = 0; i < r->n; i++)
                free(r->fields[i]);
        free(r->fields);
        *r = (struct record) {};
}

static int record_add(struct record *r, const char *data, size_t size) {
        const char *eq = memchr(data, '=', size);
        if (!eq || eq == data || memchr(data, 0, size))
                return 0;               /* not a text field */
        if ((size_t) (eq - data) == strlen("COREDUMP") && !memcmp(data, "COREDUMP", strlen("COREDUMP")))
                return 0;               /* the compact core: binary, DrKonqi fetches it with coredumpctl */
        if (r->bytes + size > RECORD_MAX)
                return -E2BIG;
        if (r->n == r->allocated) {
                size_t a = r->allocated ? 2 * r->allocated : 64;
                char **f = realloc(r->fields, a * sizeof *f);
                if (!f)
                        return -ENOMEM;
                r->fields = f;
                r->allocated = a;
        }
        char *s = strndup(data, size);
        if (!s)
                return -ENOMEM;
        r->fields[r->n++] = s;
        r->bytes += size;
        return 0;
}

static const char *record_get(const struct record *r, const char *name) {
        size_t len = strlen(name);
        for (size_t i = 0; i < r->n; i++)
                if (!strncmp(r->fields[i], name, len) && r->fields[i][len] == '=')
                        return r->fields[i] + len + 1;
        return NULL;
}

/* The newest record of crash_id that root sent, in this machine's system journal. 0 and r->n > 0:
 * found; 0 and r->n == 0: not there (yet). */
static int record_from_journal_once(sd_journal *j, const char *crash_id, struct record *r) {
        char match[64 + CRASH_ID_MAX];
        int k;

        sd_journal_flush_matches(j);
        snprintf(match, sizeof match, "COREDUMPD_CRASH_ID=%s", crash_id);
        if ((k = sd_journal_add_match(j, match, 0)) < 0 ||
            /* Under either id (crash/record.h): coredumpd's own where the user's copy was filed. */
            (k = sd_journal_add_match(j, "MESSAGE_ID=" COREDUMP_MESSAGE_ID, 0)) < 0 ||
            (k = sd_journal_add_match(j, "MESSAGE_ID=" COREDUMPD_MESSAGE_ID, 0)) < 0 ||
            (k = sd_journal_add_match(j, "_UID=0", 0)) < 0)
                return k;
        if ((k = sd_journal_seek_tail(j)) < 0)
                return k;
        k = sd_journal_previous(j);
        if (k <= 0)
                return k;
        const void *data;
        size_t size;
        sd_journal_restart_data(j);
        while ((k = sd_journal_enumerate_available_data(j, &data, &size)) > 0) {
                int e = record_add(r, data, size);
                if (e < 0)
                        return e;
        }
        return k;
}

static int record_from_journal(const char *crash_id, struct record *r) {
        _cleanup_(sd_journal_closep) sd_journal *j = NULL;
        struct timespec now;
        int k = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
        if (k < 0)
                return log_error_errno(k, "Cannot open the system journal: %m");
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t deadline = (uint64_t) now.tv_sec * 1000000 + (uint64_t) now.tv_nsec / 1000 + JOURNAL_WAIT_USEC;
        for (;;) {
                k = record_from_journal_once(j, crash_id, r);
                if (k < 0)
                        return log_error_errno(k, "Cannot read the record of crash %s: %m", crash_id);
                if (r->n > 0)
                        return 0;
                clock_gettime(CLOCK_MONOTONIC, &now);
                uint64_t t = (uint64_t) now.tv_sec * 1000000 + (uint64_t) now.tv_nsec / 1000;
                if (t >= deadline)
                        break;
                k = sd_journal_wait(j, deadline - t);
                if (k < 0)
                        return log_error_errno(k, "Cannot wait for the journal: %m");
        }
        log_notice("No record of crash %s in the system journal after %llu s: nothing to hand to DrKonqi.",
                   crash_id, JOURNAL_WAIT_USEC / 1000000);
        return -ENOENT;
}

static int record_from_file(const char *path, struct record *r) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return log_error_errno(errno, "Cannot open %s: %m", path);
        _cleanup_free_ char *line = NULL;
        size_t allocated = 0;
        ssize_t n;
        while ((n = getline(&line, &allocated, f)) > 0) {
                if (line[n - 1] == '\n')
                        line[--n] = 0;
                int k = record_add(r, line, (size_t) n);
                if (k < 0)
                        return log_error_errno(k, "Cannot read %s: %m", path);
        }
        return 0;
}

/* s as a JSON string; a byte that is no part of valid UTF-8 becomes U+FFFD, as Qt reads it. */
static void json_string_utf8(FILE *f, const char *s) {
        const unsigned char *p = (const unsigned char *) s;
        fputc('"', f);
        while (*p) {
                unsigned c = *p;
                if (c < 0x20) {
                        fprintf(f, "\\u%04x", c);
                        p++;
                } else if (c == '"' || c == '\\') {
                        fputc('\\', f);
                        fputc((int) c, f);
                        p++;
                } else if (c < 0x80) {
                        fputc((int) c, f);
                        p++;
                } else {
                        size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
                        uint32_t cp = len == 4 ? c & 0x07 : len == 3 ? c & 0x0f : c & 0x1f;
                        size_t i = 1;
                        for (; len && i < len && (p[i] & 0xc0) == 0x80; i++)
                                cp = cp << 6 | (p[i] & 0x3f);
                        bool ok = len && i == len &&
                                  !(len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) &&
                                  !(len == 4 && (cp < 0x10000 || cp > 0x10ffff));
                        if (ok) {
                                fwrite(p, 1, len, f);
                                p += len;
                        } else {
                                fputs("\xef\xbf\xbd", f);
                                p++;
                        }
                }
        }
        fputc('"', f);
}

static int record_to_json(const struct record *r, char **ret, size_t *ret_size) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        fputc('{', f);
        for (size_t i = 0; i < r->n; i++) {
                const char *eq = strchr(r->fields[i], '=');
                _cleanup_free_ char *name = strndup(r->fields[i], (size_t) (eq - r->fields[i]));
                if (!name) {
                        fclose(f);
                        free(buf);
                        return -ENOMEM;
                }
                fputs(i ? ",\n" : "\n", f);
                json_string_utf8(f, name);
                fputc(':', f);
                json_string_utf8(f, eq + 1);
        }
        fputs("\n}\n", f);
        if (fclose(f) != 0) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        *ret_size = size;
        return 0;
}

static bool parse_id(const char *s, unsigned *ret) {
        char *end;
        if (!s || !*s || *s == '-' || *s == '+')
                return false;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || *end || v >= (unsigned long) (unsigned) -1)
                return false;
        *ret = (unsigned) v;
        return true;
}

/* Becomes uid/gid for good: no supplementary groups, no way back. */
static int become(unsigned uid, unsigned gid) {
        if (getuid() == uid && geteuid() == uid && getgid() == gid && getegid() == gid)
                return 0;
        if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
                return -errno;
        if (uid != 0 && setresuid(0, 0, 0) == 0)
                return -EPERM;
        return 0;
}

static int send_record(int fd, const char *json, size_t size) {
        for (size_t off = 0; off < size;) {
                size_t n = MIN(size - off, (size_t) PACKET_MAX);
                ssize_t k = send(fd, json + off, n, MSG_NOSIGNAL);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if ((size_t) k != n)
                        return -EIO;     /* a seqpacket send is all or nothing */
                off += n;
        }
        return 0;
}

static int usage(void) {
        fprintf(stderr, "Usage: coredumpd-drkonqi [--record=FILE] [--runtime-dir=DIR] CRASH_ID\n"
                        "  (run by coredumpd-drkonqi@CRASH_ID.service)\n");
        return EXIT_FAILURE;
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "record",      required_argument, NULL, 'r' },
                { "runtime-dir", required_argument, NULL, 'd' },
                {}
        };
        const char *record_file = NULL, *runtime_dir = "/run/user", *crash_id;
        _cleanup_(record_done) struct record r = {};
        unsigned uid, gid;
        int c, k;

        log_set_program_name("coredumpd-drkonqi");
        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
                if (c == 'r')
                        record_file = optarg;
                else if (c == 'd')
                        runtime_dir = optarg;
                else
                        return usage();
        }
        if (optind != argc - 1)
                return usage();
        crash_id = argv[optind];
        if (!crash_id_is_valid(crash_id)) {
                log_error("Not a crash id: %.80s", crash_id);
                return EXIT_FAILURE;
        }

        k = record_file ? record_from_file(record_file, &r) : record_from_journal(crash_id, &r);
        if (k < 0)
                return EXIT_FAILURE;
        const char *id = record_get(&r, "COREDUMPD_CRASH_ID");
        if (!id || strcmp(id, crash_id)) {
                log_error("The record read is not crash %s's.", crash_id);
                return EXIT_FAILURE;
        }
        if (!parse_id(record_get(&r, "COREDUMP_UID"), &uid) || !parse_id(record_get(&r, "COREDUMP_GID"), &gid)) {
                log_notice("Crash %s has no user or group in its record: nothing to hand to DrKonqi.", crash_id);
                return EXIT_SUCCESS;
        }

        /* The user's runtime directory: only where it is a directory the user owns (a session),
         * opened without following a symlink, then kept as an fd. */
        _cleanup_close_ int top_fd = open(runtime_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        char name[16];
        snprintf(name, sizeof name, "%u", uid);
        _cleanup_close_ int dir_fd = top_fd < 0 ? -1 :
                openat(top_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (dir_fd < 0 || fstat(dir_fd, &st) < 0 || st.st_uid != uid) {
                log_info("User %u has no session (%s/%s): crash %s not handed to DrKonqi.", uid, runtime_dir,
                         name, crash_id);
                return EXIT_SUCCESS;
        }

        k = become(uid, gid);
        if (k < 0) {
                log_error_errno(k, "Cannot become user %u (group %u): %m", uid, gid);
                return EXIT_FAILURE;
        }

        /* From here on as the user: what the directory holds is theirs. */
        if (fstatat(dir_fd, LAUNCHER_SOCKET, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode) ||
            st.st_uid != uid) {
                log_info("User %u runs no DrKonqi launcher (%s/%s/%s): crash %s not handed to DrKonqi.", uid,
                         runtime_dir, name, LAUNCHER_SOCKET, crash_id);
                return EXIT_SUCCESS;
        }
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int len = snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", dir_fd, LAUNCHER_SOCKET);
        _cleanup_free_ char *json = NULL;
        size_t json_size;
        if ((k = record_to_json(&r, &json, &json_size)) < 0) {
                log_error_errno(k, "Cannot write crash %s's record as JSON: %m", crash_id);
                return EXIT_FAILURE;
        }
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        struct timeval tv = { .tv_sec = SEND_TIMEOUT_SEC };
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0 ||
            connect(fd, (struct sockaddr *) &sa, (socklen_t) (offsetof(struct sockaddr_un, sun_path) + (size_t) len + 1)) < 0) {
                log_error_errno(errno, "Cannot connect to %s/%s/%s: %m", runtime_dir, name, LAUNCHER_SOCKET);
                return EXIT_FAILURE;
        }
        if ((k = send_record(fd, json, json_size)) < 0) {
                log_error_errno(k, "Cannot send crash %s to DrKonqi's launcher of user %u: %m", crash_id, uid);
                return EXIT_FAILURE;
        }
        log_info("Crash %s handed to DrKonqi's launcher of user %u (%zu bytes).", crash_id, uid, json_size);
        return EXIT_SUCCESS;
}
