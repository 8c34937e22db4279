/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl vacuum: MaxAge=, MaxUse= and KeepFree= applied to the store now. */
#include <stdio.h>
#include <unistd.h>

#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/log.h"
#include "store/store.h"

int verb_vacuum(void) {
        struct store *s = NULL;
        int r;

        if (geteuid() != 0) {
                log_error("Permission denied: only root may vacuum the store.");
                return EXIT_PERMISSION;
        }
        const struct config *config = dumpctl_config();
        const char *store = store_path();
        if (!config || !store)
                return EXIT_ERROR;
        r = store_open(store, config, &s);
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
