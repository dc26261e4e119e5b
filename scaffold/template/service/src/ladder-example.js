'use strict';

// The service's hot function in JavaScript, as a team has it before any
// Rust: a URL slug (ASCII letters and digits lowercased, every run of
// anything else one `-`). rust/ladder-example/ ports it; replace both with yours.

/** @param {string} input @returns {string} */
function ladderExample(input) {
  return input
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase())
    .join('-');
}

module.exports = { ladderExample };
