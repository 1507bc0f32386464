// SPDX-License-Identifier: Apache-2.0
// agentd's transfer plugin, installed as /usr/lib/agentd/plugins/transfer: `transfer [--sha256 HEX]
// URL DEST` downloads URL to DEST through libcurl, resumably. See agentd-transfer(1) and docs/transfer.md.
import CCurl
import Glibc
import TransferCore

TerminationSignal.block()
// Asked how to call it (as every command answers): the usage on stdout, exit 0.
if CommandLine.arguments.dropFirst().first.map({ $0 == "--help" || $0 == "-h" }) == true {
    print(TransferArguments.usage + "\n(see agentd-transfer(1))")
    exit(0)
}
switch TransferArguments.parse(Array(CommandLine.arguments.dropFirst())) {
case .failure(let error):
    Output.message(error.message)
    Output.message(TransferArguments.usage)
    exit(TransferExit.usage.rawValue)
case .success(let arguments):
    curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    let checkpoint = getenv("AGENTD_CHECKPOINT").flatMap { TransferCheckpoint.decode(String(cString: $0)) }
    let status = TransferRun(arguments: arguments, checkpoint: checkpoint).run()
    exit(status.rawValue)
}
