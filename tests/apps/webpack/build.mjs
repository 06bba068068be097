// `node build.mjs`: webpack's Node API (the project has no webpack-cli); prints the stats.
import webpack from 'webpack';
import config from './webpack.config.js';

webpack(config, (error, stats) => {
  if (error) throw error;
  const { errors, warnings, assets } = stats.toJson({ all: false, errors: true, warnings: true, assets: true });
  console.log(JSON.stringify({ errors, warnings, assets: assets.map((a) => a.name) }));
});
