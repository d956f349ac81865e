#include <doctest/doctest.h>

#include "sha256.h"
#include "test_support.h"

TEST_CASE("sha256 matches the FIPS 180-4 examples") {
  CHECK(embedpe::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(embedpe::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(embedpe::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(embedpe::sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 around the padding boundary (55, 56, 63, 64 bytes)") {
  // Expected values from coreutils' sha256sum.
  CHECK(embedpe::sha256_hex(std::string(55, 'x')) == "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
  CHECK(embedpe::sha256_hex(std::string(56, 'x')) == "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
  CHECK(embedpe::sha256_hex(std::string(63, 'x')) == "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2");
  CHECK(embedpe::sha256_hex(std::string(64, 'x')) == "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
  CHECK(embedpe::sha256_hex(std::string(119, 'x')) == "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c");
  CHECK(embedpe::sha256_hex(std::string(120, 'x')) == "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98");
}

TEST_CASE("sha256 of a real model equals the hash published with it") {
  // shared/corpora/README.md provenance table for sp-test.model.
  CHECK(embedpe::sha256_hex(test::read_file(test::source_path("tests/models/sp-test.model"))) ==
        "4884d27bf50494e080aa99dbb868f27b68b6a3b6bd128da37ad6057c5e3cf5a2");
}

TEST_CASE("incremental Sha256 equals sha256_hex however the bytes are split") {
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>(i * 7));
  for (std::size_t step : {1u, 3u, 55u, 63u, 64u, 65u, 200u}) {
    embedpe::Sha256 h;
    for (std::size_t i = 0; i < data.size(); i += step) h.update(std::string_view(data).substr(i, step));
    CHECK(h.hex() == embedpe::sha256_hex(data));
  }
  CHECK(embedpe::Sha256().hex() == embedpe::sha256_hex(""));
}

TEST_CASE("a Sha256 copied, assigned or moved goes on from where its source was") {
  embedpe::Sha256 a;
  a.update("ab");
  CHECK(a.hex() == embedpe::sha256_hex("ab"));  // hex() leaves it usable
  embedpe::Sha256 copy(a);
  copy.update("c");
  a.update("x");
  CHECK(copy.hex() == embedpe::sha256_hex("abc"));
  CHECK(a.hex() == embedpe::sha256_hex("abx"));  // the copy shares nothing with it

  embedpe::Sha256 assigned;
  assigned.update("zzz");
  assigned = copy;
  CHECK(assigned.hex() == embedpe::sha256_hex("abc"));
  assigned = embedpe::Sha256();  // as parts_dir starts each part afresh
  CHECK(assigned.hex() == embedpe::sha256_hex(""));

  embedpe::Sha256 moved(std::move(copy));
  moved.update("d");
  CHECK(moved.hex() == embedpe::sha256_hex("abcd"));
}
