/* SPDX-License-Identifier: GPL-2.0 */
/* The default run as the jobs of a CI engine (nmx plan). */
#ifndef NMX_PLAN_H
#define NMX_PLAN_H

#include <stdio.h>

#include "matrix.h"

/* .gitlab-ci.yml: one shard job per tree and cell, then the merge. */
int plan_gitlab(struct matrix *m, FILE *f);

#endif
