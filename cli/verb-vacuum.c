/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl vacuum: MaxUse= and KeepFree= applied to the store now. */
#include <stdio.h>
#include <unistd.h>

#include "build-config.h"
#include "config/config.h"
#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "store/store.h"

int verb_vacuum(void) {
        struct config config;
        struct store *s = NULL;
        int r;

        if (geteuid() != 0) {
                log_error("Permission denied: only root may vacuum the store.");
                return EXIT_PERMISSION;
        }
        config_init_defaults(&config);
        r = config_load(&config, arg.config ?: COREDUMPD_CONFIG_FILE, arg.config != NULL);
        if (r < 0) {
                config_done(&config);
                return EXIT_ERROR;
        }
        r = store_open(arg.store ?: config.storage, &config, &s);
        config_done(&config);
        if (r < 0)
                return EXIT_ERROR;
        log_set_max_priority(MAX(log_get_max_priority(), LOG_INFO));
        r = store_vacuum(s, NULL, NULL);
        store_free(s);
        if (r < 0)
                return EXIT_ERROR;
        printf("Removed %d dump%s.\n", r, r == 1 ? "" : "s");
        return EXIT_OK;
}
