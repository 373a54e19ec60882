// zeader: the feed reader of the seed articles, on Coherence. See
// Examples/zeader/README.md, and `zeader help`.
import Foundation
import ZeaderKit

exit(await Commands.run(Array(CommandLine.arguments.dropFirst())))
