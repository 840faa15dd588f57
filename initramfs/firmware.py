#!/usr/bin/python3
# The firmware of the initramfs: every file an included driver names
# (modinfo -F firmware), taken from the Debian packages initramfs/firmware.conf
# gives the family that brought the driver in, or listed as left out with why.
# Usage: firmware.py MODULE_FAMILIES KMODS CONFIG_MK FIRMWARE_CONF DEBS UNPACK ROOT JSON
#   MODULE_FAMILIES  lines "PATH FAMILY": each module (relative to KMODS) and
#                    a family that brought it in
#   DEBS             $PS_CACHE/debs, where <package>.deb points at the version
#   UNPACK           where packages are unpacked (kept between builds)
#   ROOT             the staging tree: files go to ROOT/lib/firmware/
#   JSON             the list: {"nonfree", "files": [...], "left_out": [...]}
# Prints the staged files, one path below ROOT per line, for the cpio list.
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys


def die(msg):
    sys.exit("initramfs: firmware: " + msg)


def config(path):
    cfg = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^CONFIG_([A-Z0-9_]+)=(.*)$", line.strip())
            if m:
                cfg[m.group(1)] = m.group(2).strip('"')
    return cfg


def firmware_conf(path):
    conf = {}
    with open(path) as f:
        for line in f:
            words = line.split("#")[0].split()
            if len(words) >= 2:
                conf.setdefault(words[0], []).extend(words[1:])
    return conf


class Package:
    """A firmware package, unpacked once (again when its .deb changes)."""

    def __init__(self, name, debs, unpack):
        deb = os.path.join(debs, name + ".deb")
        if not os.path.isfile(deb):
            die("%s is missing (make deps downloads the firmware packages of firmware.conf)" % deb)
        self.name = name
        self.version = self.field(deb, "Version")
        section = self.field(deb, "Section")
        self.component = "non-free-firmware" if section.startswith(("non-free-firmware", "non-free")) else "main"
        self.dir = os.path.join(unpack, name)
        stamp = os.path.join(self.dir, ".deb")
        real = os.path.realpath(deb)
        if not os.path.isfile(stamp) or open(stamp).read() != real:
            shutil.rmtree(self.dir, ignore_errors=True)
            os.makedirs(self.dir)
            subprocess.run(["dpkg-deb", "-x", deb, self.dir], check=True)
            with open(stamp, "w") as f:
                f.write(real)
        self.base = os.path.join(self.dir, "lib", "firmware")
        self.licences = self.copyright()

    @staticmethod
    def field(deb, name):
        return subprocess.run(["dpkg-deb", "-f", deb, name], check=True, capture_output=True,
                              text=True).stdout.strip()

    def copyright(self):
        """The Files: paragraphs of a machine-readable debian/copyright, in order."""
        path = os.path.join(self.dir, "usr", "share", "doc", self.name, "copyright")
        paras = []
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            return paras
        if not text.startswith("Format:"):
            return paras
        for block in re.split(r"\n\s*\n", text):
            fields, key = {}, None
            for line in block.split("\n"):
                if line.startswith((" ", "\t")) and key:
                    fields[key].append(line.strip())
                elif ":" in line and not line.startswith("#"):
                    key, _, val = line.partition(":")
                    key = key.strip()
                    fields[key] = [val.strip()]
            # Files: globs may go on over continuation lines; License: the
            # short name is its first line, the text follows.
            if "Files" in fields and "License" in fields:
                paras.append((" ".join(fields["Files"]).split(), fields["License"][0]))
        return paras

    def licence(self, rel):
        """The licence of lib/firmware/rel: the last matching Files: paragraph wins (DEP-5);
        a link (ice.pkg) is judged by the file it names."""
        names = {rel, os.path.relpath(os.path.realpath(os.path.join(self.base, rel)),
                                      os.path.realpath(self.base))}
        found = None
        for globs, lic in self.licences:
            if any(fnmatch.fnmatchcase(n, g) for n in names for g in globs):
                found = lic
        return found or "not stated in /usr/share/doc/%s/copyright" % self.name

    def find(self, pattern):
        """Files below lib/firmware matching the driver's name (exact, or a glob)."""
        if not any(c in pattern for c in "*?["):
            path = os.path.join(self.base, pattern)
            return [pattern] if os.path.isfile(path) else []
        out = []
        for top, _, files in os.walk(self.base):
            for f in files:
                rel = os.path.relpath(os.path.join(top, f), self.base)
                if fnmatch.fnmatchcase(rel, pattern) and os.path.isfile(os.path.join(self.base, rel)):
                    out.append(rel)
        return sorted(out)


def main():
    modfam, kmods, config_mk, conf_path, debs, unpack, root, out_json = sys.argv[1:9]
    cfg = config(config_mk)
    conf = firmware_conf(conf_path)
    on = cfg.get("FIRMWARE") == "y"
    nonfree = on and cfg.get("FIRMWARE_NONFREE") == "y"
    packages = {}

    def package(name):
        if name not in packages:
            packages[name] = Package(name, debs, unpack)
        return packages[name]

    # module path -> its families; file name -> the modules that name it
    families = {}
    with open(modfam) as f:
        for line in f:
            rel, fam = line.split()
            families.setdefault(rel, []).append(fam)
    named = {}
    for rel in sorted(families):
        mod = re.sub(r"\.ko(\..*)?$", "", os.path.basename(rel)).replace("-", "_")
        names = subprocess.run(["modinfo", "-F", "firmware", os.path.join(kmods, rel)], check=True,
                               capture_output=True, text=True).stdout.split()
        for n in names:
            e = named.setdefault(n, {"modules": set(), "families": set()})
            e["modules"].add(mod)
            e["families"].update(families[rel])

    shipped, left_out, staged = [], [], []
    for name in sorted(named):
        e = named[name]
        fams = sorted(e["families"])
        base = {"file": name, "modules": sorted(e["modules"]), "families": fams}
        with_pkgs = [f for f in fams if f in conf]
        chosen = [f for f in with_pkgs if cfg.get("FIRMWARE_" + f[len("DRV_"):]) == "y"]
        if not on:
            left_out.append(dict(base, reason="CONFIG_FIRMWARE is off in .config"))
            continue
        if not with_pkgs:
            left_out.append(dict(base, reason="no firmware package is configured for %s (initramfs/firmware.conf)"
                                 % ", ".join(fams)))
            continue
        if not chosen:
            left_out.append(dict(base, reason="%s is off in .config" % ", ".join(
                "CONFIG_FIRMWARE_" + f[len("DRV_"):] for f in with_pkgs)))
            continue
        pkgs = []
        for f in chosen:
            pkgs += [p for p in conf[f] if p not in pkgs]
        hits = []
        for p in pkgs:
            files = package(p).find(name)
            if files:
                hits = [(package(p), rel) for rel in files]
                break
        if not hits:
            left_out.append(dict(base, reason="not in %s (the Debian firmware packages of %s)" % (
                ", ".join(pkgs), ", ".join(chosen))))
            continue
        for pkg, rel in hits:
            if pkg.component != "main" and not nonfree:
                left_out.append(dict(base, file=rel, package=pkg.name, reason=(
                    "non-free (%s, %s) and CONFIG_FIRMWARE_NONFREE is off" % (pkg.name, pkg.component))))
                continue
            src = os.path.join(pkg.base, rel)
            dst = os.path.join(root, "lib", "firmware", rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)  # a link in the package (ice.pkg) becomes the file it names
            data = open(dst, "rb").read()
            shipped.append(dict(base, file=rel, package=pkg.name, version=pkg.version,
                                component=pkg.component, license=pkg.licence(rel),
                                sha256=hashlib.sha256(data).hexdigest(), size=len(data)))
            staged.append(os.path.join("lib", "firmware", rel))

    doc = {"enabled": on, "nonfree": nonfree,
           "packages": {p.name: {"version": p.version, "component": p.component} for p in packages.values()},
           "files": shipped, "left_out": left_out}
    with open(out_json, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    for s in sorted(set(staged)):
        print(s)


if __name__ == "__main__":
    main()
