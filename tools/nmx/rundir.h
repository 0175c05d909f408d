/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run directory's cell records: RUN/TREE-VARIANT/CELL/ with the
 * build's and boot's stages.tsv ("stage<TAB>status<TAB>seconds<TAB>detail")
 * and meta.tsv ("key<TAB>value"), which scripts/lib.sh appends and nmx
 * reads through here.
 */
#ifndef NMX_RUNDIR_H
#define NMX_RUNDIR_H

#include <stddef.h>

#include "status.h"

#define RUNDIR_STAGES "stages.tsv"
#define RUNDIR_META "meta.tsv"
#define RUNDIR_REPRODUCE "reproduce.sh"
/* The cell's facts as planned (nmx describe): every step reads them here. */
#define RUNDIR_CELL "cell.tsv"
/* A cell that finished has one (nmx result writes it last). */
#define RUNDIR_RESULT "result.json"
/* The run's planned cells, "tree variant cell" lines (--resume's list). */
#define RUNDIR_PLAN "plan.tsv"
/* A --tree DIR run's checkout and series ("dir\tDIR", "series\tTREE"). */
#define RUNDIR_LOCAL_TREE "local-tree.tsv"
/* A --patches run's copy of the patches (a series file and the patches). */
#define RUNDIR_PATCHES "patches"
/* A run cut off by a signal: when, what finished, how to resume. */
#define RUNDIR_INTERRUPTED "interrupted.txt"
/* Marks a shard's run directory: merged, not reported on its own. */
#define RUNDIR_SHARD "shard"
/* The earlier run the reports were compared with (its id). */
#define RUNDIR_BASELINE "report-baseline"
/* In the results directory: a link to the last run that finished. */
#define RUNDIR_LATEST "latest"
/* A stage's status when it did its work; otherwise a cell status (status.h). */
#define RUNDIR_STAGE_OK "ok"

/* "@run/@tree-@variant/@cell" into @buf. */
void rundir_cell(char *buf, size_t size, const char *run, const char *tree,
		 const char *variant, const char *cell);

/*
 * Append one record, @n fields tab-separated on one line, to @dir/@file
 * (RUNDIR_STAGES, RUNDIR_META); tabs and line ends in a field become
 * spaces. -1 (said) if it cannot be written.
 */
int rundir_append(const char *dir, const char *file, const char *const *fields,
		  int n);

/* What a stage's key takes (nmx stage-key --stage resolves each). */
enum key_input {
	KEY_END,		/* ends a stage's list */
	KEY_TREE_COMMIT,	/* the worktree's commit */
	KEY_KCONFIG_FILES,	/* the files configuring reads, not the commit */
	KEY_COMPILER,		/* the cell's compiler's --version */
	KEY_REQUESTED_SYMBOLS,	/* the cell's requested.config, comments left out */
	KEY_DOTCONFIG,		/* the build directory's .config */
	KEY_MAKE_VARS,		/* make's variables, as build.sh passes them */
	KEY_MAKE_TARGETS,	/* the cell's make_targets */
	NR_KEY_INPUTS
};

#define RUNDIR_KEY_INPUTS 8

/* One stage of a cell (rundir.c's table). */
struct rundir_stage {
	const char *name;
	const char *run_by;	/* build.sh's stage_<name>, boot.sh, nmx merge */
	/* What the stage's own work failing ends the cell with */
	enum cell_status fails_as;
	/* What its key takes, KEY_END-terminated; none: it has no key */
	enum key_input key[RUNDIR_KEY_INPUTS];
};

/* The stage named @name, or NULL. */
const struct rundir_stage *rundir_stage(const char *name);
/* The @i-th stage in run order, or NULL past the last. */
const struct rundir_stage *rundir_stage_at(size_t i);
const char *rundir_key_input_name(enum key_input in);

/*
 * Is @status what stage @stage may record: "ok", INFRA_FAIL or the
 * status its own work fails with? 0 yes; -1 (said) an unknown stage or
 * a status it cannot have.
 */
int rundir_check_stage(const char *stage, const char *status);
/* Is @key one of the meta.tsv keys (rundir.c's table)? 0 yes, -1 (said) no. */
int rundir_check_meta_key(const char *key);

/*
 * Calls @fn with each planned cell of the plan file @path ("-": stdin), in order
 * (blank lines and # comments skipped). -1, said, if @path cannot be
 * read or a line is not "tree variant cell" (names without '/'), or if
 * @fn returns non-zero; else the number of cells.
 */
int rundir_each_planned(const char *path,
			int (*fn)(const char *tree, const char *variant,
				  const char *cell, void *data),
			void *data);

/*
 * Calls @fn with the tab-separated fields of each non-empty line of
 * @path (at most 8, split in place, line ends dropped). -1 if @path
 * cannot be opened, else 0.
 */
int rundir_each_tsv(const char *path, void (*fn)(char **f, int n, void *d),
		    void *data);

#endif
