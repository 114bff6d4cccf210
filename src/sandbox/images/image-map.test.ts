import { describe, expect, it } from 'vitest';
import { ImageMap, normalizeImageName, resolveImage } from './image-map.ts';

describe('image_map', () => {
  it("compares names in Docker's normal form", () => {
    expect(normalizeImageName('python:3.13-bookworm')).toBe('docker.io/library/python:3.13-bookworm');
    expect(normalizeImageName('docker://swebench/sweb.eval.x86_64.astropy_1776_astropy-12907')).toBe('docker.io/swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest');
    expect(normalizeImageName('index.docker.io/library/node:24-bookworm-slim')).toBe('docker.io/library/node:24-bookworm-slim');
    expect(normalizeImageName('localhost/ngym/base:bookworm')).toBe('localhost/ngym/base:bookworm');
    expect(normalizeImageName('mirror.internal:5000/team/image')).toBe('mirror.internal:5000/team/image:latest');
    expect(normalizeImageName('ghcr.io/hdl/impl/pnr@sha256:abc')).toBe('ghcr.io/hdl/impl/pnr@sha256:abc');
  });

  const map = ImageMap.parse({
    'python:3.13-bookworm': 'localhost/ngym/python:3.13',
    'docker.io/library/node:24-bookworm-slim': 'localhost/ngym/node:24',
    'docker.io/swebench/*': 'mirror.internal:5000/swebench/*',
    'docker.io/swebench/sweb.eval.x86_64.astropy_*': 'localhost/ngym/astropy:base',
    'ghcr.io/*': 'localhost/ngym/ghcr-stand-in:1',
  });

  it('maps an exact name, however the config spells it', () => {
    expect(resolveImage('python:3.13-bookworm', map)).toEqual({ image: 'localhost/ngym/python:3.13', requested: 'python:3.13-bookworm', mappedBy: 'python:3.13-bookworm' });
    expect(resolveImage('docker.io/library/python:3.13-bookworm', map).image).toBe('localhost/ngym/python:3.13');
    expect(resolveImage('node:24-bookworm-slim', map).image).toBe('localhost/ngym/node:24');
    expect(resolveImage('python:3.12-bookworm', map)).toEqual({ image: 'python:3.12-bookworm', requested: 'python:3.12-bookworm' });
  });

  it('maps a prefix onto a mirror, carrying what the * matched', () => {
    expect(resolveImage('docker.io/swebench/sweb.eval.x86_64.django_1776_django-11099:latest', map).image).toBe('mirror.internal:5000/swebench/sweb.eval.x86_64.django_1776_django-11099:latest');
    expect(resolveImage('swebench/sweb.eval.x86_64.sympy_1776_sympy-20590', map).image).toBe('mirror.internal:5000/swebench/sweb.eval.x86_64.sympy_1776_sympy-20590:latest');
  });

  it('prefers the longest matching glob, and maps a glob onto one image', () => {
    expect(resolveImage('docker.io/swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest', map)).toEqual({
      image: 'localhost/ngym/astropy:base',
      requested: 'docker.io/swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest',
      mappedBy: 'docker.io/swebench/sweb.eval.x86_64.astropy_*',
    });
    expect(resolveImage('ghcr.io/hdl/impl/pnr', map).image).toBe('localhost/ngym/ghcr-stand-in:1');
  });

  it('rejects a * in the target that no single * in the key can fill, naming the entry', () => {
    const result = ImageMap.safeParse({ 'docker.io/*/*': 'mirror/*' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/image_map entry 'docker.io\/\*\/\*: mirror\/\*'/);
    expect(ImageMap.safeParse({ 'python:3': '' }).success).toBe(false);
  });
});
