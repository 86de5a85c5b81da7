internal import ElementaryFunctions

/// The one shared `log`/`exp` (module ElementaryFunctions), under the name this module's
/// files have always used.
typealias Elementary = ElementaryFunctions.Elementary
