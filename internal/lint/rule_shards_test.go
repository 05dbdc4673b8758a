package lint

import "testing"

// Each slip shards reports, each in a fixture of its own under
// testdata/rules/shards/ (the small workflow with one edit), at its place
// in that fixture.
func TestShards_FlagsAndMatrix(t *testing.T) {
	about(t, RuleShards)
	testFixtures(t, []fixtureCase{
		{"shards: size, id and matrix", "shards/size-id-and-matrix", []string{
			prYML + "24:9: error: partition_id is [1, 0] but the roster has 2 shards for gpu (.miles-ci.yaml): write [0, 1] [shards]",
			prYML + "29:31: error: --auto-partition-id is 0; each shard job must take its own: --auto-partition-id ${{ matrix.partition_id }} [shards]",
			prYML + "29:55: error: --auto-partition-size is 1 but the roster has 2 shards for gpu (.miles-ci.yaml) [shards]",
		}},
		// An exclude drops a shard the partition_id list still shows.
		{"shards: matrix.exclude removes a shard", "shards/exclude", []string{
			prYML + "26:13: error: matrix.exclude removes partition_id 1, so that shard of the 2 shards of gpu (.miles-ci.yaml) never runs: remove the exclude entry [shards]",
		}},
	})
}
