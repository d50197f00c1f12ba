// `hpmsim events`'s printers: the listing as text, as markdown (docs/events.md's reference) and as
// JSON, the summary, and the names stat takes besides native events, each a function of the
// values (events_catalog.h) alone. docs/events.md is generated from the markdown: its lines are
// a contract, as are the JSON keys scripts read.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "tools/hpmsim/lib/events_catalog.h"

namespace hpm::tools {

// The run modes an event counts in, as letters in the modes' order (f functional, w warm-up,
// t timing, p profile; '-' where it does not count): "-wtp", "--tp", "----".
std::string modeLetters(RunModes modes);

// The listing, papi_native_avail's way: a header, one line per event (the per-thread variants of
// an event shown once, as thread 0's "NAME@t<t>", input "I + 1024 t": the others' inputs follow
// it every 1024, docs/upcq.md), and the total of the lines.
std::string eventsText(const EventsCatalog& catalog);
// docs/events.md's section of the machine: a title, the devices, the summary's tables, then the
// reference table (per-thread variants shown once, as in the text).
std::string eventsMarkdown(const EventsCatalog& catalog);
// The object --json prints: the machine, its family, devices, every selected event (per-thread
// variants too) with all it has, and the ground truth's events.
nlohmann::json eventsJson(const EventsCatalog& catalog);

// The summary's tables alone (markdown: docs/events.md's).
std::string summaryTable(const EventsSummary& summary, bool markdown);
nlohmann::json summaryJson(const EventsSummary& summary);
// --summary: the catalogue's summary, headed by the machine (text) or with the machine's name and
// family in the object (JSON).
std::string eventsSummaryText(const EventsCatalog& catalog);
nlohmann::json eventsSummaryJson(const EventsCatalog& catalog);

// --generic: a header and one line per name (name, kind, definition).
std::string genericNamesText(const GenericNames& names);
nlohmann::json genericNamesJson(const GenericNames& names);

}  // namespace hpm::tools
