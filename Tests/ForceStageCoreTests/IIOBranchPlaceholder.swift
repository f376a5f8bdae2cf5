// Placeholder so the iio branch builds before the main branch brings its tests; delete on merge.
