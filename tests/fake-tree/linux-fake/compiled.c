/* Compiled by the fake tree when CONFIG_FAKE_COMPILE=y. */
int fake_compiled(int x)
{
	return x * 3;
}
