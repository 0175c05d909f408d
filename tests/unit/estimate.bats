#!/usr/bin/env bats
# nmx estimate: a run's expected seconds from stage figures, played through
# matrix.sh's schedule (kernels one at a time, boots beside or after them,
# cells that boot alone last), on a machine's cores or a pipeline's runners.

load helpers

# Figures for x86_64 on tree t, and the median row every other cell takes.
setup_figures() {
	printf '%s\t%s\t%s\t%s\n' \
		t-upstream x86_64 prepare 10 \
		t-upstream x86_64 configure 20 \
		t-upstream x86_64 kernel 100 \
		t-upstream x86_64 kernel_cpu 150 \
		t-upstream x86_64 guest 5 \
		t-upstream x86_64 boot 60 \
		'*-upstream' '*' prepare 1 \
		'*-upstream' '*' configure 2 \
		'*-upstream' '*' kernel 50 \
		'*-upstream' '*' guest 2 \
		'*-upstream' '*' boot 40 >"$SCRATCH/typical.tsv"
	# riscv64 boots alone (qemu.alone).
	printf 't upstream %s\n' x86_64 arm64 riscv64 >"$SCRATCH/plan"
}

estimate() {
	nmx estimate --typical "$SCRATCH/typical.tsv" "$@" <"$SCRATCH/plan"
}

@test "estimate on 2 cores: the kernels one after another, then two boots at a time, the alone cell last" {
	setup_figures
	# Builds 135 + 55 + 55 (arm64's CPU seconds from the 1.3 ratio: its
	# kernel 50 s on 2 cores either way); boots 60 and 40 beside each
	# other from 245 s, riscv64's 40 s after them.
	run estimate --seconds
	[ "$status" -eq 0 ]
	[ "$output" = 345 ]
	run estimate
	[[ "$output" == "expected: about 6 min, finishing near "*" (a first run's typical figures for 3 of 3 cell(s); a changed series or config takes longer)" ]]
}

@test "estimate on 2 cores, two trees: a tree's boots before the next tree's kernels, and when its verdicts come" {
	setup_figures
	printf '%s upstream %s\n' t x86_64 t arm64 u x86_64 u arm64 >"$SCRATCH/plan"
	# Tree t: builds 135 + 55, boots 60 and 40 beside each other: its
	# last verdict at 250 s; tree u (the median row for both cells) builds
	# 55 + 55 and boots 40 and 40: 150 s more. Builds first would have
	# taken as long, every verdict after 340 s.
	run estimate --seconds
	[ "$status" -eq 0 ]
	[ "$output" = 400 ]
	run estimate
	[[ "$output" == "expected: about 7 min, finishing near "*"; t's verdicts near "*", in about 5 min (a first run's typical figures for 4 of 4 cell(s);"* ]]
	# A boot beside the builds: one schedule for the whole run (t's
	# x86_64 boots beside arm64's build, each kernel on the one core left).
	run estimate --beside 1 --seconds
	[ "$status" -eq 0 ]
	[ "$output" = 435 ]
}

@test "estimate on 4 cores: a kernel's serial part stays, its parallel part spreads; a boot beside the builds" {
	setup_figures
	# x86_64: 50 s serial + 100 s parallel over the 3 cores the boot
	# beside leaves: 118.3 s built; arm64 50 s more, riscv64 50 s: the
	# last kernel at 218.3 s, x86_64's boot beside the builds from
	# 118.3 s, arm64's after it (one beside), riscv64's alone at 218.3 s.
	run estimate --cores 4 --seconds
	[ "$status" -eq 0 ]
	[ "$output" = 258 ]
	# No boot beside a build: make on the 4 cores, the kernels built at
	# 205 s, then x86_64's and arm64's boots together, riscv64's after.
	run estimate --cores 4 --beside 0 --seconds
	[ "$output" = 305 ]
}

@test "estimate --runners: a job per tree and cell on the first runner free" {
	setup_figures
	# Jobs of 195, 95 and 95 s on two runners of 2 cores.
	run estimate --runners 2 --seconds
	[ "$status" -eq 0 ]
	[ "$output" = 195 ]
	run estimate --runners 1 --seconds
	[ "$output" = 385 ]
}

@test "estimate --last: a cell the last run booted is taken from it, the others from the typical figures" {
	setup_figures
	mkdir -p "$SCRATCH/run/t-upstream/x86_64"
	printf '%s\tok\t%s\n' prepare 1 configure 1 kernel 3 guest 1 boot 30 \
		>"$SCRATCH/run/t-upstream/x86_64/stages.tsv"
	# A cell with no figures at all (no *-seed row) is left out.
	echo 't seed x86_64' >>"$SCRATCH/plan"
	run estimate --last "$SCRATCH/run" --seconds
	[ "$status" -eq 0 ]
	[ "$output" = 196 ]
	run estimate --last "$SCRATCH/run"
	[[ "$output" == *"(the last run's figures for 1, a first run's typical figures for 2 of 4 cell(s);"* ]]
	# Nothing known of any cell: nothing said.
	run nmx estimate --typical /nonexistent <<<'t seed x86_64'
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "estimate: bad input is an error saying what and where" {
	setup_figures
	run estimate --cores 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--cores 0: a positive number"* ]]
	echo 't upstream' >>"$SCRATCH/plan"
	run estimate
	[ "$status" -eq 2 ]
	[[ "$output" == *"stdin:4: not 'tree variant cell'"* ]]
	run nmx estimate extra <"$SCRATCH/plan"
	[ "$status" -eq 2 ]
	run nmx estimate <<<'t upstream nosuchcell'
	[ "$status" -eq 2 ]
}
