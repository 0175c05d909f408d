#!/usr/bin/perl
# The fake tree's get_maintainer.pl: one maintainer, one reviewer whose
# name has a parenthesis, and a list, in the real script's format.
print "Fake Maintainer <fake.maintainer\@kernel.invalid> (maintainer:FAKE TREE (FAKE))\n";
print "\"Fake Reviewer (ACME)\" <fake.reviewer\@kernel.invalid> (reviewer:FAKE TREE)\n";
print "fake-list\@vger.kernel.invalid (open list:FAKE TREE (FAKE))\n";
