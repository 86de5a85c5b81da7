internal import ElementaryFunctions

/// The one shared `log`/`exp`/`sin`/`cos` (module ElementaryFunctions), under the name this
/// module's files have always used. Shared with Positioning since the lab moved out: the
/// simulated readings moved by ulps with it, and the figures were measured again.
typealias Elementary = ElementaryFunctions.Elementary
