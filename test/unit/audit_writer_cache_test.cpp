// What the audit writer remembers between batches, and when it forgets it
// (core/audit/writer_cache.hpp), one rule per test.
#include "core/audit/writer_cache.hpp"

#include <gtest/gtest.h>

namespace clarify {
namespace {

const TextTables kTables{100, 101, Width::Wide};
const AuditHash kText{1, 2}, kOther{3, 4};

// A cache that stored kText in a committed batch begun under generation 7.
WriterCache cache_with_text() {
    WriterCache cache;
    cache.begin_batch(7, kTables);
    cache.committed(HashSet{kText}, HashMap{{kOther, AuditHash{9, 9}}}, {kText});
    cache.note_published(true, true);
    return cache;
}

TEST(WriterCache, ACommittedBatchsTextsAreStored) {
    WriterCache cache = cache_with_text();
    EXPECT_TRUE(cache.stored(kText));
    EXPECT_TRUE(cache.published(kText));
    ASSERT_NE(cache.diverted(kOther), nullptr);
    EXPECT_EQ(*cache.diverted(kOther), (AuditHash{9, 9}));
}

TEST(WriterCache, TheSameGenerationAndTablesKeepIt) {
    WriterCache cache = cache_with_text();
    cache.begin_batch(7, kTables);
    EXPECT_TRUE(cache.stored(kText));
    EXPECT_TRUE(cache.published(kText));
}

TEST(WriterCache, APurgeSinceForgetsIt) {
    WriterCache cache = cache_with_text();
    cache.begin_batch(8, kTables);
    EXPECT_FALSE(cache.stored(kText));
    EXPECT_FALSE(cache.published(kText));
    EXPECT_EQ(cache.diverted(kOther), nullptr);
}

TEST(WriterCache, RecreatedTablesForgetIt) {
    WriterCache cache = cache_with_text();
    EXPECT_TRUE(cache.recreated({200, 101, Width::Wide}));
    EXPECT_TRUE(cache.recreated({100, 201, Width::Wide}));
    EXPECT_TRUE(cache.recreated({100, 101, Width::Narrow}));
    EXPECT_FALSE(cache.recreated(kTables));
    cache.begin_batch(7, {200, 201, Width::Wide});
    EXPECT_FALSE(cache.stored(kText));
}

TEST(WriterCache, TheFirstBatchFindsNothingRecreated) {
    WriterCache cache;
    EXPECT_FALSE(cache.recreated(kTables));
}

TEST(WriterCache, AFullCacheStartsAfresh) {
    WriterCache cache;
    cache.begin_batch(7, kTables);
    HashSet many;
    for (std::uint64_t i = 1; i <= WriterCache::kMaxStored + 1; ++i) many.insert(AuditHash{i, 1});
    cache.committed(many, {}, {});
    EXPECT_TRUE(cache.stored(AuditHash{1, 1}));
    cache.begin_batch(7, kTables);
    EXPECT_FALSE(cache.stored(AuditHash{1, 1}));
}

TEST(WriterCache, NothingIsPublishedWhenAPurgeBeganDuringTheBatch) {
    WriterCache cache;
    cache.begin_batch(7, kTables);
    cache.committed(HashSet{kText}, {}, {kText});
    cache.note_published(true, false);
    EXPECT_TRUE(cache.stored(kText));
    EXPECT_FALSE(cache.published(kText));
    EXPECT_TRUE(cache.to_publish().empty());
}

TEST(WriterCache, AFullSharedSetForgetsWhatWasPublishedBefore) {
    WriterCache cache = cache_with_text();
    cache.begin_batch(7, kTables);
    cache.committed(HashSet{kOther}, {}, {kOther});
    cache.note_published(false, true);
    EXPECT_FALSE(cache.published(kText));
    EXPECT_TRUE(cache.published(kOther));
}

TEST(WriterCache, TheFirstNarrowBatchIsNoticed) {
    WriterCache cache;
    EXPECT_TRUE(cache.first_narrow({100, 101, Width::Narrow}));
    cache.begin_batch(1, {100, 101, Width::Narrow});
    EXPECT_FALSE(cache.first_narrow({100, 101, Width::Narrow}));
}

TEST(WriterCache, IdentitiesAreCutToEightBytesAtCatalog10) {
    EXPECT_EQ(identity_of(AuditHash{5, 6}, Width::Wide), (AuditHash{5, 6}));
    EXPECT_EQ(identity_of(AuditHash{5, 6}, Width::Narrow), (AuditHash{5, 0}));
}

}  // namespace
}  // namespace clarify
