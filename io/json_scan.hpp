#pragma once
// A pass over a JSON text before it is parsed into a document (nlohmann's SAX interface):
// the bytes the parsed document will take, so that a model file whose document cannot
// fit is refused before it is built (a 200 MB list of connections takes about 1.8 GB
// parsed), and a key given twice in one object, which the parser would let the last one
// win silently.
#include <string>

namespace arbolito {

struct JsonScan {
    double document_bytes = 0;  // the parsed document (nlohmann::json) on the heap, about
    bool complete = false;      // false: the text is not valid JSON (the parser says where)
};

// Throws InputError(path, key path, "key given twice ...") at the first duplicate key.
JsonScan scan_json(const std::string& text, const std::string& path);

}  // namespace arbolito
