'use strict';

// Renders a template directory: `{{key}}` in file names and contents
// becomes `values[key]`; `_gitignore` becomes `.gitignore` (npm leaves
// `.gitignore` files out of a package). Pure: returns what to write.
const fs = require('node:fs');
const path = require('node:path');

const TEMPLATES = path.join(__dirname, '../template');

function substitute(text, values) {
  return text.replace(/\{\{(\w+)\}\}/g, (whole, key) => {
    if (!(key in values)) throw new Error(`template: no value for ${whole}`);
    return values[key];
  });
}

/** Map of relative path -> contents for template `which` ("ladder" or "service"). */
function render(which, values, dir = path.join(TEMPLATES, which), prefix = '') {
  const files = new Map();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const name = entry.name === '_gitignore' ? '.gitignore' : substitute(entry.name, values);
    const relative = prefix ? `${prefix}/${name}` : name;
    const source = path.join(dir, entry.name);
    if (entry.isDirectory()) for (const [file, text] of render(which, values, source, relative)) files.set(file, text);
    else files.set(relative, substitute(fs.readFileSync(source, 'utf8'), values));
  }
  return files;
}

module.exports = { render };
