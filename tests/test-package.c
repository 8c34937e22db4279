/* SPDX-License-Identifier: LGPL-2.1-or-later */

/*
 * The package a crash belongs to: dpkg's files parsed (shared/dpkg.c), the attribution in a fake
 * root with a dpkg database (parser/package.c: merged-/usr aliases, diversions, Multi-Arch: same,
 * Source: with its version, a modified file, no database, symlinks not followed), the ELF package
 * note of an executable made at build time with objcopy (tests/meson.build), the answer as the
 * daemon decodes it (parser/package-wire.c), and the parser itself as the daemon starts it.
 */

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash/package.h"
#include "fixtures.h"
#include "harness.h"
#include "parser/client.h"
#include "parser/checksum.h"
#include "parser/package-index.h"
#include "parser/package-note.h"
#include "parser/package.h"
#include "shared/cleanup.h"
#include "shared/dpkg.h"

static void write_at(const char *root, const char *rel, const char *text) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", root, rel);
        for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
                *s = 0;
                (void) mkdir(path, 0755);
                *s = '/';
        }
        FILE *f = fopen(path, "we");
        CHECK(f);
        CHECK(fputs(text, f) >= 0);
        CHECK(fclose(f) == 0);
}

static void md5_of(const char *text, char ret[static 33]) {
        struct md5 m;
        md5_init(&m);
        md5_update(&m, text, strlen(text));
        md5_hex(&m, ret);
}

#define STATUS                                                                                     \
        "Package: coreutils\n"                                                                     \
        "Essential: yes\n"                                                                         \
        "Status: install ok installed\n"                                                           \
        "Priority: required\n"                                                                     \
        "Architecture: amd64\n"                                                                    \
        "Multi-Arch: foreign\n"                                                                    \
        "Version: 9.1-1\n"                                                                         \
        "Depends: libacl1 (>= 2.2.23), libc6 (>= 2.34) | libc6.1, libselinux1:any\n"              \
        "Description: GNU core utilities\n"                                                        \
        " This package contains the basic file, shell and text manipulation\n"                     \
        " .\n"                                                                                     \
        "\n"                                                                                       \
        "Package: libfoo1\n"                                                                       \
        "Status: install ok installed\n"                                                           \
        "Architecture: amd64\n"                                                                    \
        "Multi-Arch: same\n"                                                                       \
        "Source: foo (1.2-3)\n"                                                                    \
        "Version: 1.2-3+b1\n"                                                                      \
        "\n"                                                                                       \
        "Package: tool\n"                                                                          \
        "Status: install ok installed\n"                                                           \
        "Architecture: amd64\n"                                                                    \
        "Version: 2:0.5-1\n"                                                                       \
        "\n"                                                                                       \
        "Package: diverter\n"                                                                      \
        "Status: install ok installed\n"                                                           \
        "Architecture: all\n"                                                                      \
        "Source: diverter-src\n"                                                                   \
        "Version: 1.0\n"                                                                           \
        "\n"                                                                                       \
        "Package: removed\n"                                                                       \
        "Status: deinstall ok config-files\n"                                                      \
        "Architecture: amd64\n"                                                                    \
        "Version: 1.0\n"                                                                           \
        "\n"                                                                                       \
        "Package: Evil_Name\n"                                                                     \
        "Status: install ok installed\n"                                                           \
        "Version: 1.0\n"

/* A root as bookworm's: /bin a symlink to usr/bin; sleep from coreutils, listed as /bin/sleep;
 * libfoo1 Multi-Arch: same with a changed library; tool's /usr/bin/tool diverted by diverter; a
 * local diversion; a removed package that still lists a file. */
static char *fake_root(void) {
        char *root = tmpdir_new();
        char sum[33], text[512];
        CHECK(root);
        write_at(root, "usr/bin/sleep", "sleep's bytes");
        write_at(root, "usr/lib/x86_64-linux-gnu/libfoo.so.1", "libfoo, changed");
        write_at(root, "usr/bin/tool", "diverter's tool");
        write_at(root, "usr/bin/tool.distrib", "tool's tool");
        write_at(root, "usr/bin/local", "the admin's");
        write_at(root, "usr/bin/leftover", "a removed package's");
        write_at(root, "usr/bin/nobodys", "no package's");
        char path[4096];
        snprintf(path, sizeof path, "%s/bin", root);
        CHECK(symlink("usr/bin", path) == 0);
        write_at(root, "var/lib/dpkg/status", STATUS);
        write_at(root, "var/lib/dpkg/info/coreutils.list", "/.\n/bin\n/bin/sleep\n/usr/share/doc/coreutils\n");
        md5_of("sleep's bytes", sum);
        snprintf(text, sizeof text, "%s  bin/sleep\n", sum);
        write_at(root, "var/lib/dpkg/info/coreutils.md5sums", text);
        write_at(root, "var/lib/dpkg/info/libfoo1:amd64.list", "/usr/lib/x86_64-linux-gnu/libfoo.so.1\n");
        md5_of("libfoo, as shipped", sum);
        snprintf(text, sizeof text, "%s  usr/lib/x86_64-linux-gnu/libfoo.so.1\n", sum);
        write_at(root, "var/lib/dpkg/info/libfoo1:amd64.md5sums", text);
        write_at(root, "var/lib/dpkg/info/tool.list", "/usr/bin\n/usr/bin/tool\n");
        md5_of("tool's tool", sum);
        snprintf(text, sizeof text, "%s  usr/bin/tool\n", sum);
        write_at(root, "var/lib/dpkg/info/tool.md5sums", text);
        write_at(root, "var/lib/dpkg/info/diverter.list", "/usr/bin/tool\n");
        write_at(root, "var/lib/dpkg/info/removed.list", "/usr/bin/leftover\n");
        write_at(root, "var/lib/dpkg/diversions",
                 "/usr/bin/tool\n/usr/bin/tool.distrib\ndiverter\n/usr/bin/local\n/usr/bin/local.orig\n:\n");
        return root;
}

static void attribute(const char *root, const char *exe, bool container, struct package_info *ret) {
        _cleanup_close_ int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        CHECK(fd >= 0);
        package_attribute(fd, exe, container, NULL, ret);
        /* What the cell would send, as the daemon decodes it. */
        char buf[PARSER_PACKAGE_ANSWER_MAX], why[96];
        struct package_info back;
        size_t n = package_answer_encode(ret, buf, sizeof buf);
        CHECK_OK(package_answer_decode(buf, n, &back, why, sizeof why));
        CHECK_STR(back.name, ret->name);
        CHECK_STR(back.error, ret->error);
}

TEST(dpkg_names_and_versions_by_policy) {
        CHECK(dpkg_name_valid("coreutils"));
        CHECK(dpkg_name_valid("libstdc++6"));
        CHECK(dpkg_name_valid("g++-12"));
        CHECK(!dpkg_name_valid("a"));
        CHECK(!dpkg_name_valid("Evil_Name"));
        CHECK(!dpkg_name_valid("-x"));
        CHECK(!dpkg_name_valid("x y"));
        CHECK(!dpkg_name_valid("../etc"));
        CHECK(dpkg_version_valid("9.1-1"));
        CHECK(dpkg_version_valid("1:2.36-9+deb12u4"));
        CHECK(dpkg_version_valid("1.0~rc1"));
        CHECK(dpkg_version_valid("2:1.2:3-4"));
        CHECK(!dpkg_version_valid("x1.0"));
        CHECK(!dpkg_version_valid("a:1.0"));
        CHECK(!dpkg_version_valid("1.0-"));
        CHECK(!dpkg_version_valid("1.0 1"));
        CHECK(!dpkg_version_valid("1.0\n"));
        CHECK(!dpkg_version_valid(""));
        CHECK(dpkg_arch_valid("amd64") && dpkg_arch_valid("all") && !dpkg_arch_valid("AMD64"));
}

static void collect(const char *name, void *userdata) {
        char *out = userdata;
        strcat(out, name);
        strcat(out, ",");
}

TEST(dpkg_status_installed_stanzas_only) {
        struct dpkg_package p;
        size_t offset = 0, n = 0;
        const char *text = STATUS;
        char names[512] = "";

        while (dpkg_status_next(text, strlen(text), &offset, &p) > 0) {
                strcat(names, p.name);
                strcat(names, " ");
                n++;
        }
        /* removed (config-files) and Evil_Name (not policy) are not installed packages here */
        CHECK_STR(names, "coreutils libfoo1 tool diverter ");
        CHECK(dpkg_status_find(text, strlen(text), "libfoo1", "amd64", &p) == 1);
        CHECK(p.multi_arch_same);
        CHECK_STR(p.source, "foo");
        CHECK_STR(p.source_version, "1.2-3");
        CHECK_STR(p.version, "1.2-3+b1");
        CHECK(dpkg_status_find(text, strlen(text), "libfoo1", "i386", &p) == 0);
        CHECK(dpkg_status_find(text, strlen(text), "diverter", NULL, &p) == 1);
        CHECK_STR(p.source, "diverter-src");
        CHECK_STR(p.source_version, "1.0");
        CHECK(dpkg_status_find(text, strlen(text), "coreutils", NULL, &p) == 1);
        CHECK_STR(p.source, "coreutils");
        CHECK(p.depends);
        dpkg_depends_foreach(p.depends, p.depends_size, 16, collect, names);
        CHECK(strstr(names, "libacl1,libc6,libselinux1,"));
        /* Cut anywhere, the text is never read past its end (ASan and valgrind would see it). */
        for (size_t cut = 0; cut < strlen(text); cut += 7) {
                char *copy = malloc(cut + 1);
                memcpy(copy, text, cut);
                offset = 0;
                while (dpkg_status_next(copy, cut, &offset, &p) > 0)
                        CHECK(dpkg_name_valid(p.name));
                free(copy);
        }
}

TEST(dpkg_lists_md5sums_diversions) {
        char sum[33];
        struct dpkg_diversion d;
        const char *list = "/.\n/bin\n/bin/sleep\n";
        CHECK(dpkg_list_contains(list, strlen(list), "/bin/sleep"));
        CHECK(!dpkg_list_contains(list, strlen(list), "/bin/slee"));
        CHECK(!dpkg_list_contains(list, strlen(list) - 1, "/bin/slee"));
        const char *sums = "0123456789ABCDEF0123456789abcdef  bin/sleep\nzz  bin/x\n";
        CHECK(dpkg_md5sums_find(sums, strlen(sums), "/bin/sleep", sum) == 1);
        CHECK_STR(sum, "0123456789abcdef0123456789abcdef");
        CHECK(dpkg_md5sums_find(sums, strlen(sums), "/bin/x", sum) == 0);
        const char *div = "/usr/bin/tool\n/usr/bin/tool.distrib\ndiverter\nrelative\n/x\nfoo\n/usr/bin/l\n/usr/bin/l.o\n:\n";
        CHECK(dpkg_diversions_find(div, strlen(div), "/usr/bin/tool.distrib", &d) == 1);
        CHECK_STR(d.from, "/usr/bin/tool");
        CHECK_STR(d.by, "diverter");
        CHECK(dpkg_diversions_find(div, strlen(div), "/x", &d) == 0); /* a triple with a relative path */
        CHECK(dpkg_diversions_find(div, strlen(div), "/usr/bin/l", &d) == 1);
        CHECK_STR(d.by, "");
}

TEST(dpkg_attribution_in_a_fake_root) {
        _cleanup_free_ char *root = fake_root();
        struct package_info p;

        /* merged /usr: the task saw /usr/bin/sleep, coreutils lists /bin/sleep */
        attribute(root, "/usr/bin/sleep", false, &p);
        CHECK_INT(p.from, ==, PACKAGE_FROM_DPKG);
        CHECK_STR(p.name, "coreutils");
        CHECK_STR(p.version, "9.1-1");
        CHECK_STR(p.arch, "amd64");
        CHECK_STR(p.source, "coreutils");
        CHECK_STR(p.source_version, "9.1-1");
        CHECK_STR(p.file, "/bin/sleep");
        CHECK_INT(p.modified, ==, PACKAGE_MODIFIED_NO);

        /* Multi-Arch: same (info/libfoo1:amd64.*), Source: with its version, a changed file */
        attribute(root, "/usr/lib/x86_64-linux-gnu/libfoo.so.1", false, &p);
        CHECK_STR(p.name, "libfoo1");
        CHECK_STR(p.version, "1.2-3+b1");
        CHECK_STR(p.source, "foo");
        CHECK_STR(p.source_version, "1.2-3");
        CHECK_INT(p.modified, ==, PACKAGE_MODIFIED_YES);

        /* the diverted name is tool's file, the original name the diverter's */
        attribute(root, "/usr/bin/tool.distrib", false, &p);
        CHECK_STR(p.name, "tool");
        CHECK_STR(p.version, "2:0.5-1");
        CHECK_STR(p.file, "/usr/bin/tool");
        CHECK_INT(p.modified, ==, PACKAGE_MODIFIED_NO);
        attribute(root, "/usr/bin/tool", false, &p);
        CHECK_STR(p.name, "diverter");
        CHECK_STR(p.source, "diverter-src");
        CHECK_INT(p.modified, ==, PACKAGE_MODIFIED_UNKNOWN); /* it has no md5sums */

        attribute(root, "/usr/bin/local", false, &p);
        CHECK_INT(p.from, ==, PACKAGE_FROM_NONE);
        CHECK(strstr(p.error, "diverted locally"));
        attribute(root, "/usr/bin/leftover", false, &p); /* only a removed package lists it */
        CHECK_INT(p.from, ==, PACKAGE_FROM_NONE);
        attribute(root, "/usr/bin/nobodys", false, &p);
        CHECK_INT(p.from, ==, PACKAGE_FROM_NONE);
        CHECK(strstr(p.error, "no package installed in the host's root has /usr/bin/nobodys"));

        /* replaced since it started: by its path, not checked */
        attribute(root, "/usr/bin/sleep (deleted)", false, &p);
        CHECK_STR(p.name, "coreutils");
        CHECK_INT(p.modified, ==, PACKAGE_MODIFIED_UNKNOWN);
        /* a path with a hostile byte comes back printable */
        attribute(root, "/usr/bin/no\033such", true, &p);
        CHECK_INT(p.from, ==, PACKAGE_FROM_NONE);
        CHECK(!strchr(p.error, '\033'));
        tmpdir_remove(root);
}

TEST(dpkg_attribution_container_without_database_or_with_links) {
        _cleanup_free_ char *root = tmpdir_new();
        struct package_info p;
        char path[4096];

        write_at(root, "usr/bin/app", "app");
        attribute(root, "/usr/bin/app", true, &p);
        CHECK_INT(p.from, ==, PACKAGE_FROM_NONE);
        CHECK(strstr(p.error, "the container's root has no dpkg database"));

        /* /var/lib/dpkg a symlink to the host's database: not followed */
        snprintf(path, sizeof path, "%s/var/lib", root);
        write_at(root, "var/lib/.keep", "");
        snprintf(path, sizeof path, "%s/var/lib/dpkg", root);
        CHECK(symlink("/var/lib/dpkg", path) == 0);
        attribute(root, "/usr/bin/app", true, &p);
        CHECK_INT(p.from, ==, PACKAGE_FROM_NONE);
        CHECK(strstr(p.error, "cannot read the container's /var/lib/dpkg/status"));
        CHECK(unlink(path) == 0);

        /* the status a FIFO: never opened (it would wait) */
        snprintf(path, sizeof path, "%s/var/lib/dpkg", root);
        CHECK(mkdir(path, 0755) == 0);
        snprintf(path, sizeof path, "%s/var/lib/dpkg/status", root);
        CHECK(mkfifo(path, 0644) == 0);
        attribute(root, "/usr/bin/app", true, &p);
        CHECK_INT(p.from, ==, PACKAGE_FROM_NONE);
        CHECK(strstr(p.error, "cannot read"));
        tmpdir_remove(root);
}

static void attribute_cached(const char *root, const char *exe, int in_fd, int out_fd, bool *ret_written,
                             struct package_info *ret) {
        _cleanup_close_ int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct package_cache cache = { .in_fd = in_fd, .out_fd = out_fd };
        CHECK(fd >= 0);
        package_attribute(fd, exe, false, &cache, ret);
        *ret_written = cache.written;
}

/* The index of the lists: made once and written, taken while the database is unchanged (the lists
 * are not read again), made anew once status changes; a forged or foreign one is not taken, and a
 * line in it with a name policy refuses is skipped. */
TEST(dpkg_index_kept_between_crashes) {
        _cleanup_free_ char *root = fake_root();
        _cleanup_free_ char *index = NULL, *list = NULL, *status = NULL;
        struct package_info p;
        bool written;
        CHECK(asprintf(&index, "%s/index", root) > 0);
        CHECK(asprintf(&list, "%s/var/lib/dpkg/info/coreutils.list", root) > 0);
        CHECK(asprintf(&status, "%s/var/lib/dpkg/status", root) > 0);

        _cleanup_close_ int out = open(index, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        CHECK(out >= 0);
        attribute_cached(root, "/usr/bin/sleep", -1, out, &written, &p);
        CHECK_STR(p.name, "coreutils");
        CHECK(written);

        /* The list emptied in place (the info directory unchanged): the index still knows; nothing
         * new is written. */
        CHECK(truncate(list, 0) == 0);
        _cleanup_close_ int in = open(index, O_RDONLY | O_CLOEXEC);
        CHECK(in >= 0);
        attribute_cached(root, "/usr/bin/sleep", in, -1, &written, &p);
        CHECK_STR(p.name, "coreutils");
        CHECK(!written);
        CHECK_INT(p.modified, ==, PACKAGE_MODIFIED_NO);

        /* The database changed (dpkg renames a new status into place): the index is made anew. */
        struct timespec times[2] = { { .tv_sec = 1000000000 }, { .tv_sec = 1000000000 } };
        CHECK(utimensat(AT_FDCWD, status, times, 0) == 0);
        _cleanup_close_ int out2 = open(root, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        CHECK(out2 >= 0);
        attribute_cached(root, "/usr/bin/sleep", in, out2, &written, &p);
        CHECK_INT(p.from, ==, PACKAGE_FROM_NONE);
        CHECK(written);

        /* A forged index of the right key: a line with a refused name skipped, the next taken. */
        _cleanup_close_ int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        char key[PACKAGE_INDEX_KEY_MAX];
        CHECK_OK(package_index_key(rfd, key));
        _cleanup_free_ char *forged = NULL;
        CHECK(asprintf(&forged, "coredumpd-dpkg-index 1 %s\n/usr/bin/nobodys\tEvil_Name\n/usr/bin/nobodys\ttool\n"
                                "/usr/bin/nobodysX\tcoreutils\n", key) > 0);
        CHECK_OK(write_text_file(root, "forged", forged));
        _cleanup_free_ char *forged_path = NULL;
        CHECK(asprintf(&forged_path, "%s/forged", root) > 0);
        _cleanup_close_ int ffd = open(forged_path, O_RDONLY | O_CLOEXEC);
        attribute_cached(root, "/usr/bin/nobodys", ffd, -1, &written, &p);
        CHECK_STR(p.name, "tool");
        /* ... and one of another key is not taken: the lists are read (nobodys is nobody's). */
        CHECK_OK(write_text_file(root, "forged", "coredumpd-dpkg-index 1 other\n/usr/bin/nobodys\ttool\n"));
        _cleanup_close_ int ffd2 = open(forged_path, O_RDONLY | O_CLOEXEC);
        attribute_cached(root, "/usr/bin/nobodys", ffd2, -1, &written, &p);
        CHECK_INT(p.from, ==, PACKAGE_FROM_NONE);
        tmpdir_remove(root);
}

TEST(package_note_of_an_elf_file) {
        const char *exe = getenv("PACKAGE_NOTE_EXE");
        char json[PACKAGE_NOTE_JSON_MAX + 1], name[64];
        CHECK(exe);
        _cleanup_close_ int fd = open(exe, O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK_INT(package_note_read(fd, json), ==, 1);
        CHECK(package_json_string(json, "name", name, sizeof name) == 1);
        CHECK_STR(name, "coredumpd-test-note");
        CHECK(package_json_string(json, "version", name, sizeof name) == 1);
        CHECK_STR(name, "1.2.3-4");

        /* In a root: the note comes first, dpkg is not asked. */
        _cleanup_free_ char *root = fake_root();
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s/usr/bin/noted'", exe, root);
        CHECK(system(cmd) == 0);
        struct package_info p;
        attribute(root, "/usr/bin/noted", false, &p);
        CHECK_INT(p.from, ==, PACKAGE_FROM_NOTE);
        CHECK_STR(p.name, "coredumpd-test-note");
        CHECK_STR(p.version, "1.2.3-4");
        CHECK_STR(p.arch, "amd64");
        CHECK(strstr(p.json, "\"type\":\"deb\""));
        tmpdir_remove(root);

        /* Without a package note: 0; not ELF: -ENOEXEC. */
        _cleanup_close_ int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        CHECK_INT(package_note_read(self, json), ==, 0);
        _cleanup_close_ int text = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
        CHECK(package_note_read(text, json) < 0);
}

static size_t note(unsigned char *buf, const char *owner, uint32_t type, const char *desc, uint32_t descsz) {
        uint32_t namesz = (uint32_t) strlen(owner) + 1;
        size_t n = 0;
        memcpy(buf, &namesz, 4);
        memcpy(buf + 4, &descsz, 4);
        memcpy(buf + 8, &type, 4);
        n = 12;
        memset(buf + n, 0, (namesz + 3) & ~3u);
        memcpy(buf + n, owner, namesz);
        n += (namesz + 3) & ~3u;
        memset(buf + n, 0, (descsz + 3) & ~3u);
        memcpy(buf + n, desc, MIN(descsz, strlen(desc) + 1));
        return n + ((descsz + 3) & ~3u);
}

TEST(package_note_parser_refuses_what_it_cannot_check) {
        unsigned char buf[8192];
        char json[PACKAGE_NOTE_JSON_MAX + 1];
        const char *good = "{\"type\":\"deb\",\"name\":\"x1\",\"version\":\"1\",\"n\":12,\"b\":true}";

        size_t n = note(buf, "GNU", 3, "abc", 3);
        n += note(buf + n, "FDO", PACKAGE_NOTE_TYPE, good, (uint32_t) strlen(good) + 1);
        CHECK_INT(package_note_parse(buf, n, json), ==, 1);
        CHECK_STR(json, good);
        /* cut short: the size claims more than there is */
        CHECK_INT(package_note_parse(buf, n - 8, json), ==, -EBADMSG);
        /* another owner or type is not it */
        n = note(buf, "FDX", PACKAGE_NOTE_TYPE, good, (uint32_t) strlen(good) + 1);
        CHECK_INT(package_note_parse(buf, n, json), ==, 0);
        /* nested, a control byte, trailing bytes, not an object, too long */
        const char *bad[] = { "{\"a\":{\"b\":1}}", "{\"name\":\"x\001\"}", "{\"a\":1} x", "[1]", "{\"a\":1,}" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                n = note(buf, "FDO", PACKAGE_NOTE_TYPE, bad[i], (uint32_t) strlen(bad[i]) + 1);
                CHECK_INT(package_note_parse(buf, n, json), ==, -EBADMSG);
        }
        char big[PACKAGE_NOTE_JSON_MAX + 64];
        memset(big, ' ', sizeof big - 1);
        big[0] = '{';
        big[sizeof big - 2] = '}';
        big[sizeof big - 1] = 0;
        n = note(buf, "FDO", PACKAGE_NOTE_TYPE, big, sizeof big);
        CHECK_INT(package_note_parse(buf, n, json), ==, -EBADMSG);
        /* an escaped value is not taken */
        char v[32];
        CHECK(package_json_valid("{\"name\":\"a\\\"b\"}"));
        CHECK(package_json_string("{\"name\":\"a\\\"b\"}", "name", v, sizeof v) == 0);
}

TEST(package_answer_checked_by_the_daemon) {
        struct package_info p;
        char why[96];
        const char *good = "FROM=dpkg\nNAME=coreutils\nVERSION=9.1-1\nARCH=amd64\nSOURCE=coreutils\n"
                           "SOURCE_VERSION=9.1-1\nFILE=/bin/sleep\nMODIFIED=yes\n";
        CHECK_OK(package_answer_decode(good, strlen(good), &p, why, sizeof why));
        CHECK_INT(p.modified, ==, PACKAGE_MODIFIED_YES);
        const char *bad[] = {
                "FROM=dpkg\nNAME=Core_Utils\nVERSION=9.1-1\nFILE=/bin/sleep\n",       /* not policy's name */
                "FROM=dpkg\nNAME=coreutils\nVERSION=9.1 1\nFILE=/bin/sleep\n",        /* a blank in the version */
                "FROM=dpkg\nNAME=coreutils\nNAME=bash\nVERSION=9.1-1\nFILE=/bin/sleep\n", /* a key twice */
                "FROM=dpkg\nNAME=coreutils\nVERSION=9.1-1\n",                          /* no file */
                "FROM=dpkg\nNAME=coreutils\nVERSION=9.1-1\nFILE=/bin/sleep\nEXTRA=1\n", /* unknown key */
                "FROM=dpkg\nNAME=coreutils\nVERSION=9.1-1\nFILE=/bin/sl\033eep\n",    /* unprintable */
                "FROM=none\nNAME=coreutils\nERROR=x\n",                                /* facts without a package */
                "FROM=none\n",                                                         /* no reason */
                "FROM=note\nNAME=hello\nVERSION=1\nJSON={\"name\":\"other\"}\n",       /* JSON names another */
                "FROM=dpkg\nNAME=coreutils\nVERSION=9.1-1\nFILE=/bin/sleep",            /* not whole lines */
                "FROM=dpkg\nNAME=coreutils\nVERSION=9.1-1\nFILE=/bin/sleep\nMODIFIED=maybe\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                CHECK(package_answer_decode(bad[i], strlen(bad[i]), &p, why, sizeof why) == -EBADMSG);
        /* a NUL inside */
        char nul[] = "FROM=none\nERROR=a\0b\n";
        CHECK(package_answer_decode(nul, sizeof nul - 1, &p, why, sizeof why) == -EBADMSG);
}

/* The parser program as the daemon starts it (as nobody, in its cell) on a fake root. */
TEST(parser_package_errand_in_its_cell) {
        if (geteuid() != 0)
                return; /* the cell changes ids */
        _cleanup_free_ char *root = fake_root();
        CHECK(chmod(root, 0755) == 0);
        _cleanup_close_ int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct package_info p;
        char reason[256] = "";
        CHECK(fd >= 0);
        int r = parser_package(fd, true, -1, -1, "/usr/bin/sleep", 65534, 65534, TENANT_UID(65534), &p, reason, sizeof reason);
        if (r < 0)
                test_fail(__FILE__, __LINE__, "parser_package: %s", reason);
        CHECK_INT(p.from, ==, PACKAGE_FROM_DPKG);
        CHECK_STR(p.name, "coreutils");
        CHECK_STR(p.file, "/bin/sleep");
        CHECK_INT(p.modified, ==, PACKAGE_MODIFIED_NO);
        tmpdir_remove(root);
}

/* One crash through the daemon's handler (the kernel played on a socketpair), its core stored. */
static void store_one(struct test_env *e) {
        struct connection_run run;
        struct coredump_ack ack;
        const size_t size = 64 * 1024;
        _cleanup_free_ uint8_t *core = fake_core_new(size, size);

        connection_run_start(&run, &e->env);
        fk_send_request(run.kernel_fd, 16, 16, COREDUMP_KERNEL | COREDUMP_USERSPACE | COREDUMP_REJECT | COREDUMP_WAIT);
        CHECK_INT(fk_read_ack(run.kernel_fd, &ack, 10000), ==, sizeof ack);
        fk_send_mark(run.kernel_fd, COREDUMP_MARK_REQACK);
        CHECK_INT(fk_stream(run.kernel_fd, core, size), ==, size);
        CHECK(shutdown(run.kernel_fd, SHUT_WR) == 0);
        CHECK_INT(fk_wait_eof(run.kernel_fd, 10000), ==, 0);
        connection_run_join(&run);
}

/* The daemon's step end to end, on this Debian host: a crash of /usr/bin/sleep is coreutils' at the
 * version dpkg reports; a crash in a root of its own without dpkg says why it has no package; with
 * other kept crashes in flight (a burst), not looked up and said so; with attribution off, no
 * field at all. */
TEST(daemon_records_the_package_of_a_kept_crash) {
        _cleanup_free_ char *version = NULL, *source = NULL;
        if (command_run("dpkg-query -W -f='${Version}' coreutils 2>/dev/null", &version) != 0 || !version[0]) {
                printf("skipping: no dpkg database with coreutils on this host\n");
                exit(77);
        }
        struct test_env e;
        test_env_init(&e, NULL, NULL);
        e.env.packages = true;
        sleeper_stop(e.sleeper);
        e.sleeper = sleeper_exec("sleeper", "exec /usr/bin/sleep 1000");
        fake_peer_init(&e.peer, e.sleeper);
        usleep(100000); /* the exec done */
        store_one(&e);
        CHECK_INT(record_capture_count(&e.records), ==, 1);
        _cleanup_free_ char *name = record_capture_field(&e.records, 0, "COREDUMP_PACKAGE_NAME");
        _cleanup_free_ char *got = record_capture_field(&e.records, 0, "COREDUMP_PACKAGE_VERSION");
        _cleanup_free_ char *modified = record_capture_field(&e.records, 0, "COREDUMPD_PACKAGE_MODIFIED");
        _cleanup_free_ char *from = record_capture_field(&e.records, 0, "COREDUMPD_PACKAGE_FROM");
        _cleanup_free_ char *src = record_capture_field(&e.records, 0, "COREDUMPD_PACKAGE_SOURCE");
        CHECK_STR(name, "coreutils");
        CHECK_STR(got, version);
        CHECK_STR(from, "dpkg");
        CHECK_STR(src, "coreutils");
        CHECK_STR(modified, "no");
        /* the index of the lists kept in the store, made by the cell */
        _cleanup_free_ char *kept = NULL, *text = NULL;
        CHECK(asprintf(&kept, "%s/.dpkg-index", e.store_dir) > 0);
        FILE *k = fopen(kept, "re");
        CHECK(k);
        char head[64] = "";
        CHECK(fgets(head, sizeof head, k));
        fclose(k);
        CHECK(strncmp(head, "coredumpd-dpkg-index 1 ", 23) == 0);
        struct stat st;
        CHECK(stat(kept, &st) == 0 && st.st_uid == 0 && (st.st_mode & 0777) == 0600);
        ino_t first = st.st_ino;
        /* the next crash takes it (the database unchanged): no new one */
        sleeper_stop(e.sleeper);
        e.sleeper = sleeper_exec("sleeper", "exec /usr/bin/sleep 1000");
        fake_peer_init(&e.peer, e.sleeper);
        usleep(100000);
        store_one(&e);
        _cleanup_free_ char *again = record_capture_field(&e.records, 1, "COREDUMP_PACKAGE_NAME");
        CHECK_STR(again, "coreutils");
        CHECK(stat(kept, &st) == 0 && st.st_ino == first);

        /* a root of its own without a dpkg database */
        _cleanup_free_ char *root = tmpdir_new();
        CHECK(chmod(root, 0755) == 0);
        sleeper_stop(e.sleeper);
        e.sleeper = sleeper_start_in_root("chrooted", root);
        fake_peer_init(&e.peer, e.sleeper);
        store_one(&e);
        CHECK_INT(record_capture_count(&e.records), ==, 3);
        _cleanup_free_ char *none = record_capture_field(&e.records, 2, "COREDUMP_PACKAGE_NAME");
        _cleanup_free_ char *error = record_capture_field(&e.records, 2, "COREDUMPD_PACKAGE_ERROR");
        CHECK(!none);
        CHECK(error && strstr(error, "the container's root has no dpkg database"));

        /* a burst: two other kept crashes in flight, the lookup is left out and the record says so */
        static struct crash other[2];
        for (size_t i = 0; i < ELEMENTSOF(other); i++) {
                other[i].context.proc_fd = -1;
                package_prepare(&other[i]);
        }
        store_one(&e);
        for (size_t i = 0; i < ELEMENTSOF(other); i++)
                package_release(&other[i]);
        _cleanup_free_ char *burst = record_capture_field(&e.records, 3, "COREDUMPD_PACKAGE_ERROR");
        CHECK(burst && strstr(burst, "not looked up: 2 other kept crashes were being handled at once"));

        /* off: not looked for */
        e.env.packages = false;
        store_one(&e);
        _cleanup_free_ char *off = record_capture_field(&e.records, 4, "COREDUMPD_PACKAGE_ERROR");
        CHECK(!off);
        tmpdir_remove(root);
        test_env_done(&e);
}

static const struct test_case tests[] = {
        TEST_ENTRY(dpkg_names_and_versions_by_policy),
        TEST_ENTRY(dpkg_status_installed_stanzas_only),
        TEST_ENTRY(dpkg_lists_md5sums_diversions),
        TEST_ENTRY(dpkg_attribution_in_a_fake_root),
        TEST_ENTRY(dpkg_attribution_container_without_database_or_with_links),
        TEST_ENTRY(dpkg_index_kept_between_crashes),
        TEST_ENTRY(package_note_of_an_elf_file),
        TEST_ENTRY(package_note_parser_refuses_what_it_cannot_check),
        TEST_ENTRY(package_answer_checked_by_the_daemon),
        TEST_ENTRY(parser_package_errand_in_its_cell),
        TEST_ENTRY(daemon_records_the_package_of_a_kept_crash),
};

int main(int argc, char *argv[]) {
        return test_main(argc, argv, tests, ELEMENTSOF(tests));
}
