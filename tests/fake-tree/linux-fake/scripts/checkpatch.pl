#!/usr/bin/perl
# The fake tree's checkpatch.pl: a patch that adds a line with "BADSTYLE"
# gets a warning, in the real script's format.
my $bad = 0;
while (<>) {
	$bad = 1 if /^\+.*BADSTYLE/;
}
print "WARNING: BADSTYLE is not kernel style\n" if $bad;
print "total: 0 errors, $bad warnings, 0 checks\n";
