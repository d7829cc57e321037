// SPDX-License-Identifier: GPL-2.0
/*
 * test_main.c - test_gpumemctl, the host-side unit tests of libgpumem,
 * gpumemctl and gpumem-oci-hook (each folder's tests/); no gpumem module
 * needed. Prints "ok N - ..." / "not ok N - ..." lines and
 * finally "N passed, N failed". Usage:
 *   test_gpumemctl [PATH-TO-gpumemctl [PATH-TO-gpumemctl-fake
 *                   [PATH-TO-gpumem-oci-hook-fake]]]
 * (with the paths, the command line's exit codes and the commands' output
 * against the simulated kernel are checked too).
 *
 * One file per concept. libgpumem/tests/: test_output.c (units, text,
 * tables, JSON, Prometheus, the field printer), test_parse.c (command-line
 * values), test_wire.c (reply parsing, names from the spec),
 * test_proc_parse.c (the process rows' parser against libnl's),
 * test_quota.c (limits and events as text), test_nl.c (the transport).
 * gpumemctl/tests/: test_cli.c (options and exit codes), test_policy.c
 * (policy check), test_commands.c and test_quota_commands.c (the commands'
 * output against tests/fake_kernel.c). oci-hook/tests/: test_hook.c
 * (gpumem-oci-hook against the same with a fake /proc and sysfs).
 * harness.c runs and checks.
 */
#include "harness.h"

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_units();
	test_utf8();
	test_term_safe();
	test_table();
	test_json_escape();
	test_card_name();
	test_json_writer();
	test_prometheus();
	test_fields();
	test_fields_prom();
	test_parse_pid();
	test_parse_interval_count();
	test_parse_size();
	test_parse_limit_size();
	test_parse_region_mode();
	test_parse_device();
	test_resolve_device();
	test_resolve_cgroup();
	test_parse_replies();
	test_proc_parse();
	test_procs_sort();
	test_parse_quota_replies();
	test_attr_fields();
	test_quota_output();
	test_dmem();
	test_family_gone();
	test_ext_ack();
	test_reply_loop();
	test_live_netlink();
	if (argc > 1) {
		test_cli(argv[1]);
		test_policy_cmd(argv[1]);
	}
	else
		skip("command line", "no path to gpumemctl given");
	if (argc > 2) {
		test_commands(argv[2]);
		test_quota_commands(argv[2]);
	} else
		skip("commands", "no path to the simulated gpumemctl given");
	if (argc > 3)
		test_hook(argv[3]);
	else
		skip("gpumem-oci-hook", "no path to the simulated hook given");
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
