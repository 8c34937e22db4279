/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The smallest program: the base the package-note fixture is made from (tests/meson.build). */
int main(void) {
        return 0;
}
