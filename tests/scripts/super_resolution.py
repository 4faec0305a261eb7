# Adapted from pytorch/examples, super_resolution/model.py and main.py (BSD-3-Clause, Copyright (c) 2017, Pytorch
# contributors). Changes: `import torch` -> `import framework as torch`; the two files in one; the BSDS300 images
# (data.py, dataset.py) replaced by a Dataset of random images whose input is the target average-pooled by the
# upscale factor; the module-level training code moved into main(argv) (its names stay module globals, as in the
# original); small defaults; losses recorded in LOSSES (lines marked "added") so that tests can read them.
import argparse
from math import log10

import framework as torch
import framework.nn as nn
import framework.nn.init as init
import framework.nn.functional as F
import framework.optim as optim
import framework.utils.data as data
from framework.utils.data import DataLoader

LOSSES = []  # added


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()

        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 64, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(64, 64, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(64, 32, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(32, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)


class RandomImages(data.Dataset):  # added: stands in for DatasetFromFolder over BSDS300
    def __init__(self, n, crop_size, upscale_factor):
        super(RandomImages, self).__init__()
        self.targets = torch.rand(n, 1, crop_size, crop_size)
        self.inputs = F.avg_pool2d(self.targets, upscale_factor)

    def __getitem__(self, index):
        return self.inputs[index], self.targets[index]

    def __len__(self):
        return len(self.targets)


def train(epoch):
    epoch_loss = 0
    for iteration, batch in enumerate(training_data_loader, 1):
        input, target = batch[0].to(device), batch[1].to(device)

        optimizer.zero_grad()
        loss = criterion(model(input), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()
        LOSSES.append(loss.item())  # added

        print("===> Epoch[{}]({}/{}): Loss: {:.4f}".format(epoch, iteration, len(training_data_loader), loss.item()))

    print("===> Epoch {} Complete: Avg. Loss: {:.4f}".format(epoch, epoch_loss / len(training_data_loader)))


def test():
    avg_psnr = 0
    with torch.no_grad():
        for batch in testing_data_loader:
            input, target = batch[0].to(device), batch[1].to(device)

            prediction = model(input)
            mse = criterion(prediction, target)
            psnr = 10 * log10(1 / mse.item())
            avg_psnr += psnr
    print("===> Avg. PSNR: {:.4f} dB".format(avg_psnr / len(testing_data_loader)))


def checkpoint(epoch):
    model_out_path = "model_epoch_{}.pth".format(epoch)
    torch.save(model, model_out_path)
    print("Checkpoint saved to {}".format(model_out_path))


def main(argv=None):
    global opt, device, model, criterion, optimizer, training_data_loader, testing_data_loader  # added
    # Training settings
    parser = argparse.ArgumentParser(description='PyTorch Super Res Example')
    parser.add_argument('--upscale_factor', type=int, default=3, help="super resolution upscale factor")
    parser.add_argument('--batchSize', type=int, default=4, help='training batch size')
    parser.add_argument('--testBatchSize', type=int, default=4, help='testing batch size')
    parser.add_argument('--nEpochs', type=int, default=2, help='number of epochs to train for')
    parser.add_argument('--lr', type=float, default=0.01, help='Learning Rate. Default=0.01')
    parser.add_argument('--accel', action='store_true', help='Enables acceleration for training, if available')
    parser.add_argument('--threads', type=int, default=0, help='number of threads for data loader to use')
    parser.add_argument('--seed', type=int, default=123, help='random seed to use. Default=123')
    parser.add_argument('--crop_size', type=int, default=24)  # added
    parser.add_argument('--checkpoint', action='store_true')  # added: the original always saves
    opt = parser.parse_args(argv)

    print(opt)

    torch.manual_seed(opt.seed)

    if opt.accel and torch.accelerator.is_available():
        device = torch.accelerator.current_accelerator()
    else:
        device = torch.device("cpu")

    print('===> Loading datasets')
    train_set = RandomImages(8, opt.crop_size, opt.upscale_factor)
    test_set = RandomImages(4, opt.crop_size, opt.upscale_factor)
    training_data_loader = DataLoader(dataset=train_set, num_workers=opt.threads, batch_size=opt.batchSize,
                                      shuffle=True)
    testing_data_loader = DataLoader(dataset=test_set, num_workers=opt.threads, batch_size=opt.testBatchSize,
                                     shuffle=False)

    print('===> Building model')
    model = Net(upscale_factor=opt.upscale_factor).to(device)
    criterion = nn.MSELoss()

    optimizer = optim.Adam(model.parameters(), lr=opt.lr)

    for epoch in range(1, opt.nEpochs + 1):
        train(epoch)
        test()
        if opt.checkpoint:  # added
            checkpoint(epoch)
    return LOSSES  # added


if __name__ == '__main__':
    main()
