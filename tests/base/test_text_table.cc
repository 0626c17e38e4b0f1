#include <doctest/doctest.h>

#include "base/text_table.h"

using topoplan::TextTable;

TEST_CASE("text table: columns as wide as their widest cell, never run together") {
  using A = TextTable::Align;
  TextTable t({A::left, A::right, A::left});
  t.add({"size", "bytes", "note"}, "#");
  t.add({"leaf738991936-a-very-long-link-name-that-used-to-run-into-the-next-column", "1.61 GB", "x"});
  t.add({"a", "241.5 MiB", "longer note"});
  CHECK(t.str() ==
        "#size                                                                           bytes  note\n"
        " leaf738991936-a-very-long-link-name-that-used-to-run-into-the-next-column    1.61 GB  x\n"
        " a                                                                          241.5 MiB  longer note\n");
}
